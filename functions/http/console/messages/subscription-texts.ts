import type { DeclineClass } from '../../../domain/mandates.ts';
import type { CancellationReason, SubscriptionStatus } from '../../../domain/subscription.ts';
import type { Interval } from '../../../domain/subscription-schedule.ts';

/** The subscriptions list, a subscription's page and its cancel confirmation (docs/console.md#subscriptions). */
export interface SubscriptionTexts {
  title: string;
  /** One subscription's page. */
  titleOf: (id: string) => string;
  newestFirst: string;
  none: string;
  statuses: Record<SubscriptionStatus, string>;
  subscription: string;
  /** What is charged how often: "€10.00 every 3 months". */
  every: (amount: string, count: number, interval: Interval) => string;
  /** At most this many periods in all, then it ends. */
  cycles: (count: number) => string;
  trialDays: (days: number) => string;
  currentPeriod: string;
  /** Period `number` (0 is the trial), from `start` to `end`. */
  period: (number: number, start: string, end: string) => string;
  /** A period by its number (0 is the trial). */
  periodName: (number: number) => string;
  periodsPaid: string;
  nextCharge: string;
  /** No charge is coming: canceled, ending, or waiting for the buyer. */
  noNextCharge: string;
  /** Canceled at the end of the period paid, as asked. */
  endsAtPeriodEnd: (end: string) => string;
  canceledAt: string;
  cancellationReasons: Record<CancellationReason, string>;
  endedAt: string;
  connection: string;
  mandate: string;
  firstPayment: string;
  metadata: string;
  latestFailure: string;
  declineClasses: Record<DeclineClass, string>;
  /** The period being collected: attempts declined, and what comes next. */
  failedAttempts: (count: number, period: number) => string;
  nextRetry: (at: string) => string;
  givingUp: (at: string) => string;
  /** The update link the buyer pays the period through. */
  updateLink: string;
  renewals: string;
  noRenewals: string;
  decline: string;
  /** The cancel action: a choice, then a confirmation. */
  cancel: string;
  cancelNow: string;
  cancelAtPeriodEnd: string;
  confirmNow: (id: string) => string;
  confirmAtPeriodEnd: (id: string, end: string) => string;
  /** A past-due subscription is canceled now either way: its period is unpaid. */
  pastDueNow: string;
  confirm: string;
  back: string;
  canceledNotice: string;
  endingNotice: string;
}
