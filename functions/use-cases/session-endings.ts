import { openSessions } from '../domain/checkout.ts';
import type { PspConnection } from '../domain/connection.ts';
import { PspSessionNotEndedError } from '../domain/errors.ts';
import { endedByUs, type Payment } from '../domain/payment.ts';
import type { PaymentLink, PspSession } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { PspSessionStatus } from '../ports/psp.ts';
import { releaseAttempt } from './deferred-capture.ts';
import { type PaymentDependencies, recordSessionStatus, type SessionOutcome } from './payments.ts';

/**
 * What ending a session at its PSP came to: `ended`, or, when its PSP refused to end it, what the PSP says of
 * the session now (and the connection that says it, which records it).
 */
export type SessionEnding =
  | { ended: true }
  | { ended: false; connection: PspConnection; status: PspSessionStatus };

/** PSP checkout sessions of links, at the connection that created each (implemented by `PspConnections`). */
export interface PspSessions {
  /** Asks to end the session, whatever the answer: for a change that promises nothing about payability (PATCH). */
  expireSession(account: string, mode: Mode, session: PspSession): Promise<unknown>;
  /**
   * Ends the session; when its PSP refuses, asks it what became of the session (`SessionEnding`). Throws when
   * the PSP could not be asked, so a session is never taken as ended without its PSP saying so.
   */
  endSession(account: string, mode: Mode, session: PspSession): Promise<SessionEnding>;
}

export type SessionEndDependencies = PaymentDependencies & { pspSessions: PspSessions };

/**
 * What became of an open attempt asked to end: `ended` (it can no longer be paid), `paid` (its PSP refused
 * because it was paid: the payment is recorded now, with its event), or `open` (its PSP refused and says it may
 * still be paid, as a bank transfer under way).
 */
export type AttemptEnd = 'ended' | 'paid' | 'open';

/**
 * Ends an open attempt's session at its PSP, by the rule of docs/orchestration.md#one-payable-session: a PSP's
 * refusal is never taken as "ended", the session is read back instead. Still payable: `open`, and nothing is
 * recorded, except at a PSP that takes no money unless we capture (docs/orchestration.md#deferred-capture): the
 * attempt is released (`releaseAttempt`) and `ended`, unless a capture of it was claimed first. Paid: recorded
 * as a notification would record it (`recordSessionStatus`), so a link that stops being payable never hides a
 * payment that went through. Over unpaid: recorded and `ended`. An attempt ended
 * now is recorded canceled when its `attempt` is given (`recorded`: its payment is stored, and the canceled one
 * replaces it; else it is stored anew, so that the session no longer counts as open). Throws when the PSP could
 * not be asked. Every caller ends sessions by this rule: cancel and expiry, the sweepers, and the checkout within
 * its call budget.
 */
export async function endAttempt(
  deps: SessionEndDependencies,
  link: PaymentLink,
  session: PspSession,
  attempt?: { payment: Payment; recorded: boolean },
): Promise<AttemptEnd> {
  const ending = await deps.pspSessions.endSession(link.account, link.mode, session);
  if (ending.ended) {
    const canceled = attempt && endedByUs(attempt.payment, deps.now());
    if (attempt && canceled) {
      await deps.payments
        .save(canceled, attempt.recorded ? attempt.payment : undefined)
        .catch((error: unknown) =>
          logger.warn('Ended session not recorded', { link_id: link.id, payment_id: canceled.id, error }),
        );
    }
    return 'ended';
  }
  const { connection, status } = ending;
  if (status.state === 'pending') return stillPayable(deps, link, session, status);
  // Whoever ends sessions here ends the link's other open sessions itself: no second round from the recording.
  await recordSessionStatus(deps, connection, link, {
    ...status,
    paymentId: status.paymentId ?? session.payment_id,
  });
  return status.state === 'succeeded' ? 'paid' : 'ended';
}

/**
 * A session its PSP refused to end and calls pending: `open`, unless its PSP takes no money until we capture and
 * the attempt is released now (`releaseAttempt`): then it is ended by our promise never to capture it.
 */
async function stillPayable(
  deps: SessionEndDependencies,
  link: PaymentLink,
  session: PspSession,
  status: PspSessionStatus,
): Promise<'open' | 'ended'> {
  if (status.deferredCapture) {
    const released = await releaseAttempt(deps, link, status.paymentId ?? session.payment_id);
    if (released === 'ended') return 'ended';
  }
  logger.info('PSP session refused to end and may still be paid', {
    link_id: link.id,
    payment_id: session.payment_id,
    connection_id: session.connection_id,
  });
  return 'open';
}

/** Sessions one call ends at once (in parallel); a retry, or the next sweep, ends the rest. */
export const MAX_SESSIONS_ENDED_AT_ONCE = 25;

/**
 * Ends every buyer's open attempt of a reusable link (docs/orchestration.md#reusable-links): in parallel, at most
 * `MAX_SESSIONS_ENDED_AT_ONCE` per call, each by `endAttempt`'s rule. `ended` remembers the sessions done with, so
 * that a retry does not ask again. Any left open (still payable, its PSP could not be asked, or more than fit)
 * throws `PspSessionNotEndedError`. `paid_meanwhile` when a refusal turned out to be a payment, which moved the
 * link on: what the caller decided from the link it read must be decided again.
 */
export async function endOpenAttempts(
  deps: SessionEndDependencies,
  link: PaymentLink,
  ended: Set<string>,
): Promise<'all_ended' | 'paid_meanwhile'> {
  if (!link.reusable) return 'all_ended';
  const payments = await deps.payments.listOfLink(link.id, link.mode);
  const open = openSessions({ ...link, psp_session: null }, payments, deps.now()).filter(
    (session) => !ended.has(session.id),
  );
  const batch = open.slice(0, MAX_SESSIONS_ENDED_AT_ONCE);
  const results = await Promise.allSettled(
    batch.map(async (session) => {
      const payment = payments.find((candidate) => candidate.id === session.payment_id);
      const outcome = await endAttempt(deps, link, session, payment && { payment, recorded: true });
      if (outcome !== 'open') ended.add(session.id);
      return outcome;
    }),
  );
  const failed = results.find((result) => result.status === 'rejected');
  const stillOpen =
    open.length -
    batch.length +
    results.filter((result) => result.status === 'rejected' || result.value === 'open').length;
  if (stillOpen > 0) {
    logger.warn('Open PSP sessions of a reusable link not all ended', {
      link_id: link.id,
      open: stillOpen,
      error: failed?.reason,
    });
    throw new PspSessionNotEndedError(failed?.reason);
  }
  const paid = results.some((result) => result.status === 'fulfilled' && result.value === 'paid');
  return paid ? 'paid_meanwhile' : 'all_ended';
}

/**
 * After a payment of a reusable link was recorded: once the link is `completed` it takes no more payments, so
 * the other buyers' open sessions are ended, as a cancel ends them (docs/orchestration.md#reusable-links). Best
 * effort, after the payment and its event are stored: a session that cannot be ended now is ended by the
 * pending-payment sweeper (`checkPendingPayments`) or by a cancel of the completed link, and a payment made on
 * it meanwhile is still recorded (`payment_link.duplicate_payment`).
 */
export async function endSessionsOfCompletedLink(
  deps: SessionEndDependencies,
  linkId: string,
  mode: Mode,
): Promise<void> {
  try {
    const link = await deps.links.get(linkId, mode);
    if (link?.status !== 'completed') return;
    await endOpenAttempts(deps, link, new Set());
  } catch (error) {
    logger.warn('Other buyers’ sessions of a completed link not all ended: left to the sweeper', {
      link_id: linkId,
      error,
    });
  }
}

/**
 * Records what a PSP says of a session (`recordSessionStatus`) for a caller with no buyer waiting (a
 * notification, the sweeper), and then, when the payment completed a reusable link, ends the other buyers' open
 * sessions (`endSessionsOfCompletedLink`). The checkout records without that: its buyer waits, and the sweeper
 * ends those sessions later.
 */
export async function recordSessionOutcome(
  deps: SessionEndDependencies,
  connection: PspConnection,
  link: PaymentLink,
  status: PspSessionStatus,
): Promise<SessionOutcome> {
  const outcome = await recordSessionStatus(deps, connection, link, status);
  if (outcome === 'paid' && link.reusable) await endSessionsOfCompletedLink(deps, link.id, link.mode);
  return outcome;
}
