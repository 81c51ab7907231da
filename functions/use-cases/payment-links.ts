import {
  ConcurrentModificationError,
  NotFoundError,
  PaymentUnderWayError,
  PspSessionNotEndedError,
} from '../domain/errors.ts';
import { cancel, expire, type Transition } from '../domain/link-events.ts';
import { hasMoneyUnderWay } from '../domain/payment-checks.ts';
import {
  type LinkFilter,
  newPaymentLink,
  type PaymentLink,
  type PaymentLinkChanges,
  type PaymentLinkInput,
  type PspSession,
  update,
} from '../domain/payment-link.ts';
import type { Principal } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import {
  applyTransition,
  getPaymentLink,
  type LinkDependencies,
  MAX_TRANSITION_ATTEMPTS,
} from './link-transitions.ts';
import {
  endAttempt,
  endOpenAttempts,
  type PspSessions,
  recordEndedByUs,
  type SessionEndDependencies,
} from './session-endings.ts';

export async function createPaymentLink(
  deps: LinkDependencies,
  principal: Principal,
  input: PaymentLinkInput,
): Promise<PaymentLink> {
  const link = newPaymentLink(principal, input, deps.now());
  if (await deps.links.create(link)) throw new Error(`The random payment link id ${link.id} was taken.`);
  putMetrics({ LinksCreated: 1 });
  return link;
}

/** One page of the caller's links, newest first; `next` is the position to continue from. */
export async function listPaymentLinks(
  deps: LinkDependencies,
  principal: Principal,
  query: LinkFilter & { limit: number; after?: string | undefined },
): Promise<{ links: PaymentLink[]; next: string | undefined }> {
  return deps.links.list({ ...query, account: principal.account, mode: principal.mode, now: deps.now() });
}

/** What ending a link needs (its cancel, its expiry): its PSP sessions ended, a payment found paid recorded. */
export type LinkEndingDependencies = LinkDependencies &
  SessionEndDependencies & {
    queue: EventQueue;
    /** A reusable link's open attempts are its payments' sessions; one found paid is recorded. */
    payments: PaymentRepository;
    checkoutBase: string;
  };

/**
 * A link whose PSP session no longer fits it (canceled, expired) has no use for that session, and a buyer still
 * on that page must not be able to pay it. Cancel and expiry end it *before* storing the change
 * (docs/orchestration.md#one-payable-session), by `endAttempt`'s rule: a session its PSP will not end and that
 * may still be paid (a bank transfer under way), or whose PSP cannot be asked, throws `PspSessionNotEndedError`
 * and the caller stores nothing, so the link keeps naming the session and whoever comes next (a retry, the next
 * sweep) asks again. One found paid has just been recorded, which moved the link on: `ConcurrentModificationError`
 * has the decision taken again on the paid link. A session past its own expiry can no longer be paid and needs
 * nothing. A payment whose money is under way (a bank debit, docs/orchestration.md#money-under-way) may still pay
 * the link, past its session's end too, and only its PSP settling it, days later, frees the link:
 * `PaymentUnderWayError`, known from the stored payment (`Payment.money_under_way`) before any PSP call, or from
 * the PSP's answer. `ended` remembers the sessions this call is done with, so a retry after a lost race does not
 * ask the PSP again.
 */
async function endLinkSession(
  deps: LinkEndingDependencies,
  before: PaymentLink,
  after: PaymentLink,
  ended: Set<string>,
): Promise<void> {
  const session = before.psp_session;
  if (!session || after.psp_session?.id === session.id || ended.has(session.id)) return;
  if (await moneyUnderWay(deps, before, session)) throw new PaymentUnderWayError();
  if (Date.parse(session.expires_at) <= deps.now().getTime()) return;
  let outcome: Awaited<ReturnType<typeof endAttempt>>;
  try {
    outcome = await endAttempt(deps, before, session);
  } catch (error) {
    warnNotEnded(before, session, error);
    throw new PspSessionNotEndedError(error);
  }
  if (outcome === 'under_way') throw new PaymentUnderWayError();
  if (outcome === 'open') throw new PspSessionNotEndedError();
  ended.add(session.id);
  if (outcome === 'paid')
    throw new ConcurrentModificationError('The link was paid while its session was ended.');
}

/** Whether the session's payment is stored with its money under way at its PSP. */
async function moneyUnderWay(deps: LinkEndingDependencies, link: PaymentLink, session: PspSession) {
  if (!session.payment_id) return false;
  return hasMoneyUnderWay(await deps.payments.get(link.id, link.mode, session.payment_id));
}

const warnNotEnded = (link: PaymentLink, session: PspSession, error: unknown) =>
  logger.warn('PSP session not ended', {
    link_id: link.id,
    session_id: session.id,
    connection_id: session.connection_id,
    error,
  });

/** Cancel's and expiry's step before the commit: every session the link leaves behind is ended first. */
async function endSessionsBeforeCommit(
  deps: LinkEndingDependencies,
  transition: Transition,
  ended: Set<string>,
): Promise<void> {
  await endLinkSession(deps, transition.before, transition.after, ended);
  if ((await endOpenAttempts(deps, transition.before, ended)) === 'paid_meanwhile') {
    throw new ConcurrentModificationError('A buyer’s payment was recorded while the sessions were ended.');
  }
}

/**
 * PATCH asks the PSP to end the session the link dropped, and promises nothing more: whatever the PSP answers
 * or fails, the checkout shows that session until its PSP confirms it ended, and opens no other. A session its PSP
 * ended is ours to record, as the checkout's ending is (`recordEndedByUs`: canceled): its PSP now reads it ended,
 * which the next read would otherwise record as the session's own end (failed with a refused try, and the
 * merchant told so: docs/orchestration.md#what-the-merchant-is-told).
 */
async function askToEndDroppedSession(
  deps: UpdateDependencies,
  before: PaymentLink,
  after: PaymentLink,
): Promise<void> {
  const session = before.psp_session;
  if (!session || after.psp_session?.id === session.id) return;
  if (Date.parse(session.expires_at) <= deps.now().getTime()) return;
  try {
    if ((await deps.pspSessions.expireSession(before.account, before.mode, session)) !== 'ended') return;
  } catch (error) {
    return warnNotEnded(before, session, error);
  }
  const payment = await deps.payments
    .get(before.id, before.mode, session.payment_id)
    .catch((error: unknown) => warnNotEnded(before, session, error));
  if (payment) await recordEndedByUs(deps, { payment, recorded: true });
}

type UpdateDependencies = LinkDependencies & {
  pspSessions: Pick<PspSessions, 'expireSession'>;
  payments: Pick<PaymentRepository, 'get' | 'save'>;
};

/**
 * `PATCH /v1/payment-links/{id}`: the merchant's changes to an open link, stored with a write conditioned on the
 * version read, and retried from a fresh read when a payment, cancel, expiry or session write got there first
 * (which then decides: a link that is no longer open is `invalid_state`). PATCH states the result, so repeating
 * it is harmless and it takes no `Idempotency-Key`. A change to what the PSP shows drops the link's session and
 * then asks its PSP to end it. Unlike cancel and expiry, PATCH promises nothing about payability, so a PSP that
 * cannot end the session does not block the merchant's change: the session's payment stays pending, and the
 * checkout never opens another session before that one is confirmed ended (docs/orchestration.md#sessions).
 */
export async function updatePaymentLink(
  deps: UpdateDependencies,
  principal: Principal,
  id: string,
  changes: PaymentLinkChanges,
): Promise<PaymentLink> {
  for (let attempt = 1; ; attempt++) {
    const before = await getPaymentLink(deps, principal, id);
    const after = update(before, changes, deps.now());
    try {
      await deps.links.update(before, after);
    } catch (error) {
      if (error instanceof ConcurrentModificationError && attempt < MAX_TRANSITION_ATTEMPTS) continue;
      throw error;
    }
    await askToEndDroppedSession(deps, before, after);
    return after;
  }
}

/**
 * The merchant cancels a link: 200 with the canceled link, the same link unchanged when it already was
 * canceled, `invalid_state` when paid or expired. Emits `payment_link.canceled` once however many cancels race.
 * Every session the link leaves behind is ended first (`endSessionsBeforeCommit`); while one may still be paid
 * the link stays open (`PspSessionNotEndedError`: 503 with `Retry-After`; `PaymentUnderWayError`, 409, while a
 * payment's money is under way, which days settle), so a cancel that answers 200 left no payable session, and one
 * found paid is recorded first, so that cancel then finds the link paid (409). A
 * completed reusable link stays completed: canceling it ends the sessions other buyers still have open, by the
 * same rules, and answers the link without an event (docs/orchestration.md#reusable-links).
 */
export async function cancelPaymentLink(
  deps: LinkEndingDependencies,
  principal: Principal,
  id: string,
): Promise<PaymentLink> {
  const ended = new Set<string>();
  const { link } = await applyTransition(
    deps,
    () => getPaymentLink(deps, principal, id),
    (current, now) => cancel(current, now),
    (transition) => endSessionsBeforeCommit(deps, transition, ended),
  );
  if (link.status !== 'completed') return link;
  const outcome = await endOpenAttempts(deps, link, ended);
  // A straggler's payment was just recorded (a duplicate payment): answer the link with it.
  return outcome === 'paid_meanwhile' ? getPaymentLink(deps, principal, id) : link;
}

/**
 * The expiry sweeper: records `expired` (and emits `payment_link.expired`) for up to `batchSize` open links
 * whose `expires_at` has passed. A link that fails is logged and left for the next run. A link with a payment
 * whose money is under way (`waiting`) is left for the next run too, without a log: a bank debit holds it for days,
 * and once the debit settles the next run expires the link, or finds it paid. Its stored payment says so, so it
 * costs each run the link's and that payment's reads and no PSP call; it stays on the sweeper's list (at its
 * `expires_at`), as moving it off until the payment settles would take a write on the link by every path that
 * settles a payment (docs/orchestration.md#money-under-way).
 */
export async function expireDueLinks(
  deps: LinkEndingDependencies,
  batchSize: number,
  /** Takes no new link after this returns false (the function's time is running out); the rest waits. */
  hasTimeLeft: () => boolean = () => true,
): Promise<{ expired: number; failed: number; waiting: number }> {
  const due = await deps.links.dueForExpiry(deps.now(), batchSize);
  let expired = 0;
  let failed = 0;
  let waiting = 0;
  for (const { id, mode } of due) {
    if (!hasTimeLeft()) break;
    try {
      const ended = new Set<string>();
      const { transition } = await applyTransition(
        deps,
        async () => {
          const link = await deps.links.get(id, mode);
          if (!link) throw new NotFoundError(`No payment link ${id}.`);
          return link;
        },
        (link, now) => expire(link, now),
        // A session that may still be paid keeps the link open (reads show it expired): the next run asks again.
        (transition) => endSessionsBeforeCommit(deps, transition, ended),
      );
      if (transition) expired++;
    } catch (error) {
      if (error instanceof PaymentUnderWayError) {
        waiting++;
        continue;
      }
      failed++;
      logger.error('Could not expire payment link', { link_id: id, error });
    }
  }
  return { expired, failed, waiting };
}
