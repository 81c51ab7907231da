import { classified, type PaymentFailure, type ReportedFailure } from './payment-failure.ts';

/**
 * A refused try on a session its PSP keeps payable (docs/orchestration.md#decline-codes): the PSP tells it as it
 * happens and cannot be asked for it later, so the pending payment keeps it (`Payment.declined_attempt`), and the
 * session's expiry fails the payment with it rather than as a buyer who left. A paid session ignores it.
 */
interface PendingAttempt {
  status: string;
  declined_attempt?: PaymentFailure;
  updated_at: string;
  version: number;
}

/** A pending payment with the decline of the last try its PSP refused; `undefined` when nothing changes. */
export function withDeclinedAttempt<P extends PendingAttempt>(
  payment: P,
  declined: ReportedFailure | undefined,
  now: Date,
): P | undefined {
  const known = payment.declined_attempt;
  if (payment.status !== 'pending' || !declined) return undefined;
  if (known?.code === declined.code && known.message === declined.message) return undefined;
  return {
    ...payment,
    declined_attempt: classified(declined),
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

/**
 * A pending payment whose PSP says the buyer's money is under way (`PspSessionStatus.paymentUnderWay`): marked so,
 * which keeps its session open past its end (docs/orchestration.md#money-under-way), and an earlier refused try
 * dropped, as it is not how the session ends; `undefined` when nothing changes.
 */
export function withMoneyUnderWay<P extends PendingAttempt & { money_under_way?: true }>(
  payment: P,
  now: Date,
): P | undefined {
  if (payment.status !== 'pending' || (payment.money_under_way && !payment.declined_attempt))
    return undefined;
  const { declined_attempt: _superseded, ...underWay } = payment;
  return {
    ...underWay,
    money_under_way: true,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  } as P;
}

/** What a pending answer changes: money under way (`withMoneyUnderWay`), else a refused try (`withDeclinedAttempt`). */
export function stillPendingWith<P extends PendingAttempt & { money_under_way?: true }>(
  payment: P,
  answer: { declinedAttempt?: ReportedFailure | undefined; moneyUnderWay?: boolean | undefined },
  now: Date,
): P | undefined {
  return answer.moneyUnderWay
    ? withMoneyUnderWay(payment, now)
    : withDeclinedAttempt(payment, answer.declinedAttempt, now);
}

/** What a session's end says: an expiry after a refused try (`declined`) is that decline; any other end itself. */
export function endAfterDeclinedAttempt<O extends { state: string; failure: ReportedFailure | null }>(
  outcome: O,
  declined: ReportedFailure | undefined,
): O | (O & { state: 'failed'; failure: ReportedFailure }) {
  return outcome.state === 'expired' && declined
    ? { ...outcome, state: 'failed', failure: declined }
    : outcome;
}
