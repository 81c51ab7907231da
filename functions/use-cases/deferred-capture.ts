import { chargedAmountMismatch } from '../domain/charged-amount.ts';
import type { PspConnection } from '../domain/connection.ts';
import { type CaptureClaim, claimAttempt } from '../domain/deferred-capture.ts';
import { ConcurrentModificationError } from '../domain/errors.ts';
import { paymentAmount } from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { logger } from '../logger.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { Psp, PspSessionStatus } from '../ports/psp.ts';
import { canCaptureLater, canEndSessions, canVoidAuthorizations } from '../ports/psp-capabilities.ts';
import { mismatchedStatus, reportAmountMismatch } from './charged-amounts.ts';

/** What the claims need: the attempts' payments, and the clock. */
export interface CaptureClaimDependencies {
  payments: Pick<PaymentRepository, 'get' | 'save'>;
  now: () => Date;
}

const MAX_CLAIM_ATTEMPTS = 4;

/**
 * Deferred capture, the capture side (docs/orchestration.md#deferred-capture): a session its buyer approved and
 * that awaits our capture (`deferredCapture: 'approved'`) is captured, once, only while its link can still be
 * paid by that attempt (`captureDecision`); otherwise it is released, never captured, and voided where its PSP
 * can. Called wherever we learn of the approval, whichever comes first: the buyer's return, the PSP's
 * notification, the missed-notification sweeper. Answers the status to record (`recordSessionStatus`): the
 * PSP's after the capture, or the attempt canceled when it was released. Any other status is answered as it is.
 * A PSP that could not capture, or not void a released attempt, throws, and whoever comes next (the PSP's retried
 * notification, the sweeper) captures with the same idempotency key, or voids. An approval at another amount or
 * currency than the attempt's (`chargedAmountMismatch`) is never captured: it is voided where the PSP can, and
 * answered as the failure `amount_mismatch` (docs/security.md#amounts-the-psp-reports).
 */
export async function captureWhilePayable(
  deps: CaptureClaimDependencies,
  connection: PspConnection,
  psp: Psp,
  link: PaymentLink,
  status: PspSessionStatus,
): Promise<PspSessionStatus> {
  const paymentId = status.paymentId;
  if (
    status.deferredCapture !== 'approved' ||
    status.state !== 'pending' ||
    !canCaptureLater(psp) ||
    !paymentId
  ) {
    return status;
  }
  const refused = await refusedForItsAmount(deps, connection, psp, link, status, paymentId);
  if (refused) return refused;
  const claim = await claimAttemptOf(deps, link, paymentId, 'claimed');
  if (claim === 'claimed') return psp.captureSession({ id: status.id, paymentId });
  logger.info('Approved attempt released: its link can no longer be paid by it', {
    link_id: link.id,
    payment_id: paymentId,
    connection_id: connection.id,
  });
  await voidReleased(connection, psp, paymentId, status.id);
  return {
    ...status,
    state: 'canceled',
    failure: {
      code: 'canceled',
      message: 'Approved when its link could no longer be paid by it: not captured.',
    },
  };
}

/**
 * The approval of a pending attempt at another amount than the attempt's: voided, never captured, and answered as
 * the failure to record (`mismatchedStatus`); undefined when the amounts agree, or when the attempt is not pending
 * (or has no record), which the claim then releases as ever.
 */
async function refusedForItsAmount(
  deps: CaptureClaimDependencies,
  connection: PspConnection,
  psp: Psp,
  link: PaymentLink,
  status: PspSessionStatus,
  paymentId: string,
): Promise<PspSessionStatus | undefined> {
  const payment = await deps.payments.get(link.id, link.mode, paymentId);
  if (payment?.status !== 'pending') return undefined;
  const mismatch = chargedAmountMismatch(paymentAmount(payment, link), status.amount);
  if (!mismatch) return undefined;
  const voided = await voidReleased(connection, psp, paymentId, status.id);
  reportAmountMismatch({
    connection,
    linkId: link.id,
    paymentId,
    mismatch,
    givenBack: voided ? 'not captured; the authorization voided' : 'not captured',
  });
  return mismatchedStatus(status, mismatch);
}

/**
 * Deferred capture, the ending side: an attempt its PSP cannot end (an order the buyer may still approve, or has
 * approved) is ended by our promise never to capture it. The release is claimed on its payment, which is recorded
 * canceled with it: `ended` unless a capture was claimed first (`capturing`: the money may be moving, the attempt
 * is still open). An attempt without a record of its own is never captured either (`ended`).
 */
export async function releaseAttempt(
  deps: CaptureClaimDependencies,
  link: PaymentLink,
  paymentId: string,
): Promise<'ended' | 'capturing'> {
  const claim = await claimAttemptOf(deps, link, paymentId, 'released');
  return claim === 'claimed' ? 'capturing' : 'ended';
}

/**
 * Claims the attempt for a capture or a release (`claimAttempt`), with a write conditioned on the payment's
 * version, read again when another write got there first: the claim that holds, or undefined when the attempt
 * has no record (never captured).
 */
async function claimAttemptOf(
  deps: CaptureClaimDependencies,
  link: PaymentLink,
  paymentId: string,
  wanted: CaptureClaim,
): Promise<CaptureClaim | undefined> {
  for (let attempt = 1; ; attempt++) {
    const payment = await deps.payments.get(link.id, link.mode, paymentId);
    if (!payment) return undefined;
    const { holds, write } = claimAttempt(link, payment, wanted, deps.now());
    try {
      if (write) await deps.payments.save(write, payment);
      return holds;
    } catch (error) {
      if (!(error instanceof ConcurrentModificationError) || attempt >= MAX_CLAIM_ATTEMPTS) throw error;
    }
  }
}

/**
 * The approval of a released attempt, never to be captured: a PSP that can void an authorization does
 * (`VoidsAuthorizations`); else one that can end a session is asked to (`EndsSessions`); an approval that can be
 * neither simply lapses at its PSP. Whether an authorization was voided. Throws when the PSP could not be asked:
 * whoever saw the approval asks again (the PSP's notification, delivered again as it was not acknowledged; an
 * ending, tried again), as the attempt is settled from now on and no longer swept.
 */
export async function voidReleased(
  connection: PspConnection,
  psp: Psp,
  paymentId: string,
  sessionId: string,
): Promise<boolean> {
  if (canVoidAuthorizations(psp)) {
    await psp.voidAuthorization({ id: sessionId, paymentId });
    return true;
  }
  if (canEndSessions(psp)) {
    await psp.expireSession({
      provider: connection.provider,
      connection_id: connection.id,
      payment_id: paymentId,
      id: sessionId,
      url: '',
      expires_at: '',
    });
  }
  return false;
}
