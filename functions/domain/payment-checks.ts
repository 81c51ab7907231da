import { FIRST_CHECK_AFTER_MS, MAX_CHECK_INTERVAL_MS, type Payment, settle } from './payment.ts';

/**
 * How long past its session's end a payment whose money is under way (a bank debit) stays pending: the slowest
 * debit the PSPs document, a SEPA Direct Debit's outcome known within 14 business days, which span at most 22
 * calendar days with the SEPA holidays (docs/orchestration.md#money-under-way, where the sources are). Past 30 days
 * no debit can still be under way, so the payment is recorded as any session its PSP still calls pending past its
 * end.
 */
export const MONEY_UNDER_WAY_FOR_AT_MOST_MS = 30 * 24 * 3_600_000;

/**
 * Whether the buyer's money is under way at the payment's PSP, as its PSP last said (`stillPendingWith`): its session
 * stays open, past its end too, until its PSP settles it (docs/orchestration.md#money-under-way).
 */
export const hasMoneyUnderWay = (payment: Payment | undefined): boolean =>
  payment?.status === 'pending' && payment.money_under_way === true;

/** One more check just after a session's end (or the bound on money under way) settles it. */
const LAST_CHECK_AFTER_END_MS = 60_000;

/**
 * The sweeper asked and the PSP still says pending: ask again later, waiting twice as long each time, until
 * the session can no longer be paid. A session past its end that the PSP still calls pending is recorded expired
 * (its link stays payable through a new attempt), or failed with the try its PSP refused on it (`settle`). But
 * when its PSP says the buyer's money is under way (`moneyUnderWay`: a bank debit takes days, longer than any
 * session lasts), the payment stays pending past its session's end, asked at the longest interval, until its
 * PSP settles it or `MONEY_UNDER_WAY_FOR_AT_MOST_MS` has passed; an earlier refused try is not how it ends then.
 */
export function stillPending(payment: Payment, now: Date, moneyUnderWay = false): Payment {
  const { declined_attempt: _superseded, ...withoutDecline } = payment;
  const current = moneyUnderWay ? withoutDecline : payment;
  const sessionEnd = payment.session_expires_at ? Date.parse(payment.session_expires_at) : now.getTime();
  const lastEnd = moneyUnderWay ? sessionEnd + MONEY_UNDER_WAY_FOR_AT_MOST_MS : sessionEnd;
  if (lastEnd < now.getTime()) {
    return settle(current, { state: 'expired', failure: null, reference: null }, now) as Payment;
  }
  const checks = payment.checks + 1;
  const wait =
    sessionEnd < now.getTime()
      ? MAX_CHECK_INTERVAL_MS
      : Math.min(FIRST_CHECK_AFTER_MS * 2 ** checks, MAX_CHECK_INTERVAL_MS);
  return {
    ...current,
    ...(moneyUnderWay ? { money_under_way: true } : {}),
    checks,
    next_check_at: new Date(Math.min(now.getTime() + wait, lastEnd + LAST_CHECK_AFTER_END_MS)).toISOString(),
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

/**
 * The sweeper could not ask the PSP (it failed, or threw): ask again later with the same growing waits, so that
 * one payment that keeps failing is not picked first on every run. Nothing is concluded from a question that got
 * no answer: the payment stays pending, even past its session's end.
 */
export function checkFailed(payment: Payment, now: Date): Payment | undefined {
  if (payment.status !== 'pending') return undefined;
  const checks = payment.checks + 1;
  const wait = Math.min(FIRST_CHECK_AFTER_MS * 2 ** checks, MAX_CHECK_INTERVAL_MS);
  return {
    ...payment,
    checks,
    next_check_at: new Date(now.getTime() + wait).toISOString(),
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}
