/**
 * When a subscription's periods start and end, and when its retries fall (docs/subscriptions.md#periods), pure. All
 * times are UTC instants; a month or a year keeps the time of day and the day of the month of the schedule's
 * anchor, clamped to the month's last day: a subscription anchored on 31 January renews on 28 (or 29) February,
 * 31 March, 30 April, 31 May. Each start is worked out from the anchor, never from the previous period, so a short
 * month never shortens the ones after it.
 */

export const INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** What a subscription link charges for: every `interval_count` intervals, after an optional free trial. */
export interface Recurring {
  interval: Interval;
  interval_count: number;
  /** Days of free trial before the first charge: the buyer sets up the mandate and pays nothing then. */
  trial_days: number | null;
  /** How many periods are charged in all (the first included), then the subscription ends; null: until canceled. */
  cycles: number | null;
}

/** `recurring` as a request gives it: the trial and the cycles may be left out. */
export type RecurringInput = Pick<Recurring, 'interval' | 'interval_count'> &
  Partial<Pick<Recurring, 'trial_days' | 'cycles'>>;

/** The terms as a link keeps them: every field set. */
export const recurringOf = (input: RecurringInput): Recurring => ({
  interval: input.interval,
  interval_count: input.interval_count,
  trial_days: input.trial_days ?? null,
  cycles: input.cycles ?? null,
});

/** The longest period a subscription may have: a year, as PSPs allow (docs/subscriptions.md#the-link; `interval_count` per interval). */
export const MAX_INTERVAL_COUNT: Record<Interval, number> = { day: 365, week: 52, month: 12, year: 1 };
export const MAX_TRIAL_DAYS = 730;
export const MAX_CYCLES = 1000;

/** Days after a period's first failed charge that it is charged again (docs/subscriptions.md#retries). */
export const DEFAULT_RETRY_DAYS: readonly number[] = [1, 3, 5, 7];
/** Most retries an account may set, and their last day: card networks cap reattempts within 30 days. */
export const MAX_RETRIES = 8;
export const MAX_RETRY_DAY = 30;

/** What happens once a period's retries end unpaid: the subscription is canceled, or left `past_due`. */
export const AFTER_RETRIES = ['cancel', 'leave_past_due'] as const;
export type AfterRetries = (typeof AFTER_RETRIES)[number];

/** An account's collection settings (`GET /v1/account-settings`). */
export interface CollectionSettings {
  subscription_retry_days: readonly number[];
  subscription_after_retries: AfterRetries;
}

export const DEFAULT_COLLECTION: CollectionSettings = {
  subscription_retry_days: DEFAULT_RETRY_DAYS,
  subscription_after_retries: 'cancel',
};

/** Where a schedule counts from: the start of period `anchor_period` (1, or the period a recovery restarted). */
export interface Anchor {
  anchor: string;
  anchor_period: number;
}

export const DAY_MS = 86_400_000;

/** `at` moved by `months` calendar months, its day clamped to the target month's last day. */
export function addMonths(at: Date, months: number): Date {
  const target = new Date(at.getTime());
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(at.getUTCDate(), lastDay));
  return target;
}

/** The start of period `period` (at or after the anchor's), counted from the anchor. */
export function periodStart(
  schedule: Anchor,
  recurring: Pick<Recurring, 'interval' | 'interval_count'>,
  period: number,
): Date {
  const anchor = new Date(schedule.anchor);
  const steps = (period - schedule.anchor_period) * recurring.interval_count;
  switch (recurring.interval) {
    case 'day':
      return new Date(anchor.getTime() + steps * DAY_MS);
    case 'week':
      return new Date(anchor.getTime() + steps * 7 * DAY_MS);
    case 'month':
      return addMonths(anchor, steps);
    case 'year':
      return addMonths(anchor, steps * 12);
  }
}

/** Period `period`'s start and end (the next one's start). */
export function periodBounds(
  schedule: Anchor,
  recurring: Pick<Recurring, 'interval' | 'interval_count'>,
  period: number,
): { start: Date; end: Date } {
  return {
    start: periodStart(schedule, recurring, period),
    end: periodStart(schedule, recurring, period + 1),
  };
}

/**
 * When a period whose first charge failed at `firstFailedAt` is charged again after `failedAttempts` failed
 * attempts, or undefined when its retries are over.
 */
export function retryAt(
  retryDays: readonly number[],
  firstFailedAt: Date,
  failedAttempts: number,
): Date | undefined {
  const days = retryDays[failedAttempts - 1];
  return days === undefined ? undefined : new Date(firstFailedAt.getTime() + days * DAY_MS);
}

/** When a period's collection ends unpaid: its last retry day (the day of the first failure without retries). */
export function givesUpAt(retryDays: readonly number[], firstFailedAt: Date): Date {
  return new Date(firstFailedAt.getTime() + (retryDays.at(-1) ?? 0) * DAY_MS);
}
