import { createHash } from 'node:crypto';
import {
  type AmountMismatch,
  amountMismatchFailure,
  amountText,
  chargedAmountMismatch,
  expectedCharge,
} from '../domain/charged-amount.ts';
import type { PspConnection } from '../domain/connection.ts';
import { PspUnavailableError } from '../domain/errors.ts';
import { idFromBytes } from '../domain/ids.ts';
import type { Payment } from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import { type Psp, type PspSessionStatus, pspFailureOf } from '../ports/psp.ts';
import { canRefund } from '../ports/psp-capabilities.ts';

declare const amountChecked: unique symbol;

/**
 * The payment a PSP's status is about, as one read found it (`stored` undefined: no record), handed from the
 * amount's check to the recording (`recordSessionStatus`), so that both use one read; the recording's write is
 * conditional on the version read, so a change meanwhile is still caught. `ofLink`, when the read was of the
 * whole list: the link's payments, this one among them (`readSuccessPayment`, ./session-endings.ts).
 */
export interface PaymentRead {
  id: string;
  stored: Payment | undefined;
  ofLink?: readonly Payment[];
}

/**
 * A PSP's status whose amount was held against its payment's (`checkChargedAmount`). Recording takes only this
 * type (`recordSessionStatus`, ./payments.ts), so no path can record a success the check has not seen.
 */
export type CheckedSessionStatus = PspSessionStatus & { readonly [amountChecked]: true };

export interface ChargedAmountDependencies {
  payments: Pick<PaymentRepository, 'get'>;
  /** The adapter of the connection that reported the success, to give back what it took. */
  pspSessions: { adapter(connection: PspConnection): Promise<Psp> };
}

/**
 * Every success a PSP reports goes through here before it is recorded, whichever path learnt of it (notification,
 * the buyer's return, the sweeper, a session found paid while being ended): a success at another amount or
 * currency than its payment's (`chargedAmountMismatch`, compared with the payment's own amount: a buyer-chosen
 * amount or picked quantities are on it) is answered as a failure, `amount_mismatch`, so that the link is not
 * paid, and `payment_link.payment_failed` is sent. What the PSP took is refunded first, in full, with an
 * idempotency key of the payment (`giveBack`): a PSP that cannot be asked throws, nothing is recorded, and
 * whoever asks next (the PSP's retried notification, the sweeper) refunds with the same key; a refund the PSP
 * refuses, or a success without the PSP's reference, is recorded all the same and logged as not given back.
 * A payment already recorded succeeded is not judged again; one already recorded `amount_mismatch` is answered
 * as such without a second refund. Any other status passes as it is. The payment is read here unless the caller
 * read it already (`read`, of `paymentId`), to hand the same read on to the recording.
 */
export async function checkChargedAmount(
  deps: ChargedAmountDependencies,
  connection: PspConnection,
  link: PaymentLink,
  status: PspSessionStatus,
  paymentId: string,
  read?: PaymentRead,
): Promise<CheckedSessionStatus> {
  if (status.state !== 'succeeded') return status as CheckedSessionStatus;
  const stored =
    read?.id === paymentId ? read.stored : await deps.payments.get(link.id, link.mode, paymentId);
  if (stored?.status === 'succeeded') return status as CheckedSessionStatus;
  const expected = expectedCharge(stored, link, status.id);
  const mismatch = expected && chargedAmountMismatch(expected, status.amount);
  if (!mismatch) return status as CheckedSessionStatus;
  if (stored?.failure?.code !== 'amount_mismatch') {
    const fact = { connection, linkId: link.id, paymentId, mismatch };
    const psp = await deps.pspSessions.adapter(connection);
    const givenBack = await giveBack(psp, link, paymentId, status).catch((error: unknown) => {
      // Seen, and not recorded: the next notification or check asks for the same refund.
      reportAmountMismatch({ ...fact, givenBack: 'not yet: the PSP could not be asked for the refund' });
      throw error;
    });
    reportAmountMismatch({ ...fact, givenBack });
  }
  return mismatchedStatus(status, mismatch);
}

/** The PSP's status answered as the failure of a mismatched charge, for recording. */
export function mismatchedStatus(status: PspSessionStatus, mismatch: AmountMismatch): CheckedSessionStatus {
  const { deferredCapture: _, ...rest } = status;
  return { ...rest, state: 'failed', failure: amountMismatchFailure(mismatch) } as CheckedSessionStatus;
}

/**
 * Refunds in full what a mismatched success took (what the PSP reports), under our id of the refund derived from
 * the payment, so that every path and every retry asks for the same refund. Answers what became of it, for the
 * log; throws `PspUnavailableError` when the PSP could not be asked.
 */
async function giveBack(
  psp: Psp,
  link: PaymentLink,
  paymentId: string,
  status: PspSessionStatus,
): Promise<string> {
  if (!canRefund(psp)) return 'not given back: the PSP takes no refunds through us';
  if (!status.paymentReference) return 'not given back: the PSP named no payment to refund';
  if (!status.amount) return 'not given back: the PSP did not say what it took';
  try {
    const refund = await psp.refund({
      refundId: mismatchRefundId(paymentId),
      linkId: link.id,
      paymentReference: status.paymentReference,
      amount: status.amount,
      description: link.description,
    });
    return `refund ${refund.reference} ${refund.state}`;
  } catch (error) {
    if (pspFailureOf(error)?.kind !== 'refused') throw new PspUnavailableError(error);
    return `not given back: the PSP refused the refund (${(error as Error).message})`;
  }
}

/** Our id of the refund of a mismatched payment: the same for every path that sees it (the PSP's idempotency key). */
export const mismatchRefundId = (paymentId: string): string =>
  idFromBytes('re', createHash('sha256').update(`amount-mismatch\0${paymentId}`).digest());

/**
 * Logs the mismatch as an error and counts it (`PaymentAmountMismatches`, which an alarm watches:
 * docs/operations.md#alarms), with both amounts and what was given back (`givenBack`).
 */
export function reportAmountMismatch(fact: {
  connection: PspConnection;
  linkId: string;
  paymentId: string;
  mismatch: AmountMismatch;
  givenBack: string;
}): void {
  const { connection, mismatch } = fact;
  putMetrics({ PaymentAmountMismatches: 1 }, { provider: connection.provider });
  logger.error('A PSP reported another amount than its payment’s: the link is not paid by it', {
    link_id: fact.linkId,
    payment_id: fact.paymentId,
    connection_id: connection.id,
    provider: connection.provider,
    expected: amountText(mismatch.expected),
    reported: amountText(mismatch.reported),
    given_back: fact.givenBack,
  });
}
