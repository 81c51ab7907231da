import { ANSWER_ROOM_MS, PSP_CALL_TIMEOUT_MS } from '../domain/call-budgets.ts';
import { CALLS_TO_END_A_SESSION, openSessions } from '../domain/checkout/sessions.ts';
import type { PspConnection } from '../domain/connection.ts';
import {
  ConcurrentModificationError,
  PaymentUnderWayError,
  PspSessionNotEndedError,
} from '../domain/errors.ts';
import { endedByUs, type Payment } from '../domain/payment.ts';
import { hasMoneyUnderWay } from '../domain/payment-checks.ts';
import type { PaymentLink, PspSession } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { Psp, PspSessionStatus, SessionEnd } from '../ports/psp.ts';
import { checkChargedAmount, type PaymentRead } from './charged-amounts.ts';
import { releaseAttempt, voidReleased } from './deferred-capture.ts';
import {
  type PaymentDependencies,
  paymentIdOfSession,
  type RecordedStatus,
  recordSessionStatus,
  type SessionOutcome,
} from './payments.ts';

/**
 * What ending a session at its PSP came to: `ended`, or, when its PSP refused to end it, what the PSP says of
 * the session now (and the connection that says it, which records it).
 */
export type SessionEnding =
  | { ended: true }
  | { ended: false; connection: PspConnection; status: PspSessionStatus };

/** PSP checkout sessions of links, at the connection that created each (implemented by `PspConnections`). */
export interface PspSessions {
  /**
   * Asks to end the session, for a change that promises nothing about payability (PATCH): `ended`, or `refused`
   * (also by a PSP that cannot end sessions early), and nothing is read back.
   */
  expireSession(account: string, mode: Mode, session: PspSession): Promise<SessionEnd>;
  /**
   * Ends the session; when its PSP refuses, asks it what became of the session (`SessionEnding`). Throws when
   * the PSP could not be asked, so a session is never taken as ended without its PSP saying so.
   */
  endSession(account: string, mode: Mode, session: PspSession): Promise<SessionEnding>;
  /** The adapter of a connection: what a success at another amount took is given back through it. */
  adapter(connection: PspConnection): Promise<Psp>;
}

export type SessionEndDependencies = PaymentDependencies & {
  pspSessions: PspSessions;
  /**
   * What is left of the calling function's time, where a buyer waits on it (the checkout page): the sessions a
   * payment leaves behind are ended only while a round of it fits (`endSessionsAfterLastPayment`). Absent: no bound.
   */
  timeLeftMs?: () => number;
};

/** What `recordStatus` recorded, with the read of the payment it recorded from (a success's). */
type Recorded = RecordedStatus & { read: PaymentRead | undefined };

/**
 * Records what a PSP says of a session (`recordSessionStatus`), once its amount was checked against its payment's
 * (`checkChargedAmount`): the one way every path records a PSP's status. A success's payment is read once, here
 * (`readSuccessPayment`), for both.
 */
async function recordStatus(
  deps: SessionEndDependencies,
  connection: PspConnection,
  link: PaymentLink,
  status: PspSessionStatus,
): Promise<Recorded> {
  const paymentId = status.paymentId ?? paymentIdOfSession(status.id);
  const read = status.state === 'succeeded' ? await readSuccessPayment(deps, link, paymentId) : undefined;
  const checked = await checkChargedAmount(deps, connection, link, status, paymentId, read);
  return { ...(await recordSessionStatus(deps, connection, link, checked, read)), read };
}

/**
 * The payment a success is about, read once for its amount's check and its recording. When it may pay a single-use
 * link (one not paid yet), with the link's other payments in the same Query: a payment item is about 0.6 KB, so a
 * single-use link's few cost the read unit a GetItem of one costs, and whether the payment leaves another session
 * of the link open is known without reading them again (`endSessionsAfterLastPayment`). Otherwise the payment
 * alone: a reusable link may have thousands.
 */
async function readSuccessPayment(
  deps: SessionEndDependencies,
  link: PaymentLink,
  id: string,
): Promise<PaymentRead> {
  if (link.reusable || link.status === 'paid') {
    return { id, stored: await deps.payments.get(link.id, link.mode, id) };
  }
  const ofLink = await deps.payments.listOfLink(link.id, link.mode);
  return { id, stored: ofLink.find((payment) => payment.id === id), ofLink };
}

/**
 * What became of an open attempt asked to end: `ended` (it can no longer be paid; also when it was paid at another
 * amount than its own, recorded failed with `amount_mismatch`), `paid` (its PSP refused because it was paid: the
 * payment is recorded now, with its event), `open` (its PSP refused and says it may still be paid, as a bank
 * transfer under way), or `under_way` (open too, its PSP saying the buyer's money is under way: a bank debit, which
 * settles days later, docs/orchestration.md#money-under-way).
 */
export type AttemptEnd = 'ended' | 'paid' | 'open' | 'under_way';

/**
 * Ends an open attempt's session at its PSP, by the rule of docs/orchestration.md#one-payable-session: a PSP's
 * refusal is never taken as "ended", the session is read back instead. Still payable: `open`, and nothing is
 * recorded, except at a PSP that takes no money unless we capture (docs/orchestration.md#deferred-capture): the
 * attempt is released (`releaseAttempt`) and `ended`, unless a capture of it was claimed first. Paid: recorded
 * as a notification would record it (`recordStatus`), so a link that stops being payable never hides a
 * payment that went through; a payment that completed its link ends the link's other open sessions
 * (`endSessionsAfterLastPayment`). Over unpaid: recorded and `ended`. An attempt ended
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
  const { end, recorded } = await endOneAttempt(deps, link, session, attempt);
  if (recorded) await endSessionsAfterLastPayment(deps, recorded);
  return end;
}

/** `endAttempt` without its follow-up, for callers that end every open attempt themselves; what it recorded. */
async function endOneAttempt(
  deps: SessionEndDependencies,
  link: PaymentLink,
  session: PspSession,
  attempt?: { payment: Payment; recorded: boolean },
): Promise<{ end: AttemptEnd; recorded?: Recorded }> {
  const ending = await deps.pspSessions.endSession(link.account, link.mode, session);
  if (ending.ended) {
    if (attempt) await recordEndedByUs(deps, attempt);
    return { end: 'ended' };
  }
  const { connection, status } = ending;
  if (status.state === 'pending' && status.paymentUnderWay) return { end: 'under_way' };
  if (status.state === 'pending') return { end: await stillPayable(deps, link, session, ending) };
  const recorded = await recordStatus(deps, connection, link, {
    ...status,
    paymentId: status.paymentId ?? session.payment_id,
  });
  // A success at another amount than the payment's was recorded failed: the session is over, the link unpaid.
  const paid = status.state === 'succeeded' && recorded.outcome !== 'failed';
  return { end: paid ? 'paid' : 'ended', recorded };
}

/** How often an ended attempt is read and recorded again when its payment changed meanwhile. */
const MAX_ENDED_WRITES = 4;

/**
 * Records an attempt whose session its PSP just ended as ended by us (`endedByUs`: canceled), on condition of the
 * version read (`attempt.recorded`; else as a new payment). A payment changed meanwhile (a refused try stored on it,
 * the sweeper's next check) is read and ended again, never left pending beside a session its PSP ended, which the
 * next read would record as that session's own end (failed with the refused try, and its event) rather than ours;
 * one settled meanwhile (paid, failed) stands. A write that still fails is logged: the session is ended all the same.
 */
export async function recordEndedByUs(
  deps: { payments: Pick<PaymentRepository, 'get' | 'save'>; now: () => Date },
  attempt: { payment: Payment; recorded: boolean },
): Promise<void> {
  let { payment } = attempt;
  let before = attempt.recorded ? payment : undefined;
  try {
    for (let write = 1; ; write++) {
      const canceled = endedByUs(payment, deps.now());
      if (!canceled) return;
      try {
        return await deps.payments.save(canceled, before);
      } catch (error) {
        if (!(error instanceof ConcurrentModificationError) || write >= MAX_ENDED_WRITES) throw error;
      }
      const stored = await deps.payments.get(payment.link_id, payment.mode, payment.id);
      if (!stored) return;
      payment = stored;
      before = stored;
    }
  } catch (error) {
    logger.warn('Ended session not recorded', { link_id: payment.link_id, payment_id: payment.id, error });
  }
}

/**
 * A session its PSP refused to end and calls pending: `open`, unless its PSP takes no money until we capture and
 * the attempt is released now (`releaseAttempt`): then it is ended by our promise never to capture it, and an
 * approval already given is voided where its PSP can (docs/orchestration.md#deferred-capture).
 */
async function stillPayable(
  deps: SessionEndDependencies,
  link: PaymentLink,
  session: PspSession,
  { connection, status }: { connection: PspConnection; status: PspSessionStatus },
): Promise<'open' | 'ended'> {
  if (status.deferredCapture) {
    const released = await releaseAttempt(deps, link, status.paymentId ?? session.payment_id);
    if (released === 'ended') {
      // An approval never to be captured is voided now: its own notification, which would void it, may be lost,
      // and the buyer's money stays held until the bank lets it lapse. A void that fails throws, so the ending is
      // asked again (the release holds, and the void is sent again under its idempotency key).
      if (status.deferredCapture === 'approved') {
        await voidReleased(
          connection,
          await deps.pspSessions.adapter(connection),
          session.payment_id,
          session.id,
        );
      }
      return 'ended';
    }
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
 * throws `PspSessionNotEndedError`, or `PaymentUnderWayError` when one of them is a payment whose money is under
 * way, which days, not a retry, settle. An attempt stored with its money under way is not asked about: its PSP
 * would refuse to end it. `paid_meanwhile` when a refusal turned out to be a payment, which moved the
 * link on: what the caller decided from the link it read must be decided again.
 */
export async function endOpenAttempts(
  deps: SessionEndDependencies,
  link: PaymentLink,
  ended: Set<string>,
): Promise<'all_ended' | 'paid_meanwhile'> {
  if (!link.reusable) return 'all_ended';
  return endEveryOpenAttempt(deps, link, ended);
}

/** `endOpenAttempts` for a link of either kind: every open attempt of it, whoever's. */
async function endEveryOpenAttempt(
  deps: SessionEndDependencies,
  link: PaymentLink,
  ended: Set<string>,
): Promise<'all_ended' | 'paid_meanwhile'> {
  const payments = await deps.payments.listOfLink(link.id, link.mode);
  const open = openSessions({ ...link, psp_session: null }, payments, deps.now()).filter(
    (session) => !ended.has(session.id),
  );
  const batch = open.slice(0, MAX_SESSIONS_ENDED_AT_ONCE);
  const results = await Promise.allSettled(
    batch.map(async (session) => {
      const payment = payments.find((candidate) => candidate.id === session.payment_id);
      if (hasMoneyUnderWay(payment)) return 'under_way';
      const { end } = await endOneAttempt(deps, link, session, payment && { payment, recorded: true });
      if (end !== 'open' && end !== 'under_way') ended.add(session.id);
      return end;
    }),
  );
  const failed = results.find((result) => result.status === 'rejected');
  const underWay = results.filter((result) => result.status === 'fulfilled' && result.value === 'under_way');
  const stillOpen =
    open.length -
    batch.length +
    results.filter((result) => result.status === 'rejected' || result.value === 'open').length;
  // A debit under way is no fault to warn of: it holds the link until its PSP settles it, days later.
  if (stillOpen > 0) {
    logger.warn('Open PSP sessions of a link not all ended', {
      link_id: link.id,
      open: stillOpen,
      error: failed?.reason,
    });
  }
  if (underWay.length > 0) throw new PaymentUnderWayError();
  if (stillOpen > 0) throw new PspSessionNotEndedError(failed?.reason);
  const paid = results.some((result) => result.status === 'fulfilled' && result.value === 'paid');
  return paid ? 'paid_meanwhile' : 'all_ended';
}

/** Time for one round of ending sessions in parallel: the end, and the read-back of a refusal. */
const ROUND_OF_ENDINGS_MS = CALLS_TO_END_A_SESSION * PSP_CALL_TIMEOUT_MS + ANSWER_ROOM_MS;

/**
 * After a payment was recorded: once it was the link's last (a single-use link `paid`, a reusable one
 * `completed`, as the paid write left it), the link takes no more payments, so every other open session of it is
 * ended, as a cancel ends them: a single-use link's earlier attempt at another PSP (a failover, a lost race), a
 * reusable link's other buyers' (docs/orchestration.md#one-payable-session). A single-use link's payments are
 * listed again only when what recording the payment read leaves one open (`otherSessionMayBeOpen`). Best effort,
 * after the payment and its event are stored, and only while a round of endings fits the time left where a buyer
 * waits (`timeLeftMs`): a session that cannot be ended now is ended by the pending-payment sweeper at its next
 * check (`checkPendingPayments`) or by a cancel of the completed link, and a payment made on it meanwhile is still
 * recorded (`payment_link.duplicate_payment`).
 */
export async function endSessionsAfterLastPayment(
  deps: SessionEndDependencies,
  { paid, read }: Recorded,
): Promise<void> {
  if (!paid) return;
  const { before, after: link } = paid;
  if (link.status !== 'completed' && link.status !== 'paid') return;
  if (read?.ofLink && !otherSessionMayBeOpen(before, read.ofLink, read.id, deps.now())) return;
  try {
    if (deps.timeLeftMs && deps.timeLeftMs() < ROUND_OF_ENDINGS_MS) {
      logger.info('No time left to end the other sessions of a paid link: left to the sweeper', {
        link_id: link.id,
      });
      return;
    }
    await endEveryOpenAttempt(deps, link, new Set());
  } catch (error) {
    logger.warn('Other sessions of a paid link not all ended: left to the sweeper', {
      link_id: link.id,
      error,
    });
  }
}

/**
 * Whether a session besides the paying one (`paymentId`'s) may still be open once a single-use link is paid, from
 * what recording the payment read and wrote: one of the link's payments, listed with it before the paid write,
 * pending with its session not expired; or the session the link showed when the paid write found it (`shown`:
 * the transition's `before`), which may have been stored after that list was read. Another session opened
 * after the list was read and lost its race to be the link's is ended by its own opener, else by the sweeper.
 */
function otherSessionMayBeOpen(
  shown: PaymentLink,
  ofLink: readonly Payment[],
  paymentId: string,
  now: Date,
): boolean {
  const others = ofLink.filter((payment) => payment.id !== paymentId);
  return openSessions(shown, others, now).some((session) => session.payment_id !== paymentId);
}

/**
 * Records what a PSP says of a session (`recordStatus`: its amount checked, then recorded) for a notification,
 * the sweeper or the buyer's return, and then, when the payment was the link's last, ends the link's other open
 * sessions (`endSessionsAfterLastPayment`).
 */
export async function recordSessionOutcome(
  deps: SessionEndDependencies,
  connection: PspConnection,
  link: PaymentLink,
  status: PspSessionStatus,
): Promise<SessionOutcome> {
  const recorded = await recordStatus(deps, connection, link, status);
  await endSessionsAfterLastPayment(deps, recorded);
  return recorded.outcome;
}
