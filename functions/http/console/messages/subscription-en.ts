import type { Interval } from '../../../domain/subscription-schedule.ts';
import type { SubscriptionTexts } from './subscription-texts.ts';

const units: Record<Interval, readonly [string, string]> = {
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
  year: ['year', 'years'],
};

/** Subscriptions in English. */
export const subscriptionEn: SubscriptionTexts = {
  title: 'Subscriptions',
  titleOf: (id) => `Subscription ${id}`,
  newestFirst: 'Newest first',
  none: 'No subscriptions.',
  statuses: {
    trialing: 'in trial',
    active: 'active',
    past_due: 'past due',
    canceled: 'canceled',
    ended: 'ended',
  },
  subscription: 'Subscription',
  every: (amount, count, interval) =>
    count === 1 ? `${amount} every ${units[interval][0]}` : `${amount} every ${count} ${units[interval][1]}`,
  cycles: (count) => `${count} periods in all`,
  trialDays: (days) => `${days} days of trial`,
  currentPeriod: 'Current period',
  period: (number, start, end) => `${number === 0 ? 'Trial' : `Period ${number}`}: ${start} to ${end}`,
  periodName: (number) => (number === 0 ? 'Trial' : `Period ${number}`),
  periodsPaid: 'Periods paid',
  nextCharge: 'Next charge',
  noNextCharge: 'none coming',
  endsAtPeriodEnd: (end) => `Cancels at the end of the period, ${end}`,
  canceledAt: 'Canceled',
  cancellationReasons: {
    requested: 'by the merchant',
    buyer: 'by the buyer',
    payment_failed: 'its payments failed',
  },
  endedAt: 'Ended',
  connection: 'Connection',
  mandate: 'Mandate',
  firstPayment: 'First payment',
  metadata: 'Metadata',
  latestFailure: 'Latest failure',
  declineClasses: {
    soft: 'soft decline',
    hard: 'hard decline',
    authentication_required: 'authentication required',
  },
  failedAttempts: (count, period) =>
    `Period ${period}: ${count} ${count === 1 ? 'attempt' : 'attempts'} declined`,
  nextRetry: (at) => `next attempt ${at}`,
  givingUp: (at) => `no retry left: unpaid at ${at}`,
  updateLink: 'Link where the buyer pays it',
  renewals: 'Renewals',
  noRenewals: 'No renewal charged yet.',
  decline: 'Decline',
  cancel: 'Cancel the subscription',
  cancelNow: 'Cancel now',
  cancelAtPeriodEnd: 'Cancel at the end of the period',
  confirmNow: (id) => `Cancel subscription ${id} now? Nothing more is charged.`,
  confirmAtPeriodEnd: (id, end) =>
    `Cancel subscription ${id} at the end of the period paid, ${end}? Nothing more is charged.`,
  pastDueNow: 'Its period is unpaid: it is canceled now either way.',
  confirm: 'Yes, cancel it',
  back: 'Back, change nothing',
  canceledNotice: 'Subscription canceled.',
  endingNotice: 'The subscription cancels at the end of its period.',
};
