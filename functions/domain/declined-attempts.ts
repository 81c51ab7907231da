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

/** What a session's end says: an expiry after a refused try (`declined`) is that decline; any other end itself. */
export function endAfterDeclinedAttempt<O extends { state: string; failure: ReportedFailure | null }>(
  outcome: O,
  declined: ReportedFailure | undefined,
): O | (O & { state: 'failed'; failure: ReportedFailure }) {
  return outcome.state === 'expired' && declined
    ? { ...outcome, state: 'failed', failure: declined }
    : outcome;
}
