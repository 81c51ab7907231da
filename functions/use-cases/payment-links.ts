import { openSessions } from '../domain/checkout.ts';
import { ConcurrentModificationError, NotFoundError, PspSessionNotEndedError } from '../domain/errors.ts';
import { endedByUs } from '../domain/payment.ts';
import {
  cancel,
  expire,
  type LinkEvent,
  type LinkSnapshot,
  type LinkStatus,
  newPaymentLink,
  type PaymentLink,
  type PaymentLinkChanges,
  type PaymentLinkInput,
  type PspSession,
  type Transition,
  update,
} from '../domain/payment-link.ts';
import type { Mode, Principal } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';

export interface LinkDependencies {
  links: LinkRepository;
  now: () => Date;
}

export async function createPaymentLink(
  deps: LinkDependencies,
  principal: Principal,
  input: PaymentLinkInput,
): Promise<PaymentLink> {
  const link = newPaymentLink(principal, input, deps.now());
  await deps.links.create(link);
  putMetrics({ LinksCreated: 1 });
  return link;
}

/** The caller's link, or `not_found`: another account's or the other mode's link is indistinguishable. */
export async function getPaymentLink(
  deps: LinkDependencies,
  principal: Principal,
  id: string,
): Promise<PaymentLink> {
  const link = await deps.links.get(id, principal.mode);
  if (!link || link.account !== principal.account) throw new NotFoundError(`No payment link ${id}.`);
  return link;
}

const MAX_TRANSITION_ATTEMPTS = 5;

/**
 * A snapshot with the address buyers pay at, `{checkoutBase}/{id}` (the link's checkout page), and the QR code
 * of that address (docs/checkout.md#qr-codes).
 */
export function withCheckoutUrl<T extends Pick<LinkSnapshot, 'id'>>(snapshot: T, checkoutBase: string) {
  const checkoutUrl = `${checkoutBase}/${snapshot.id}`;
  return { ...snapshot, checkout_url: checkoutUrl, qr_code_url: `${checkoutUrl}/qr.svg` };
}

/** The transition with its event's link as webhooks show it, `checkout_url` included. */
export function withEventCheckoutUrl(transition: Transition, checkoutBase: string): Transition {
  const { data } = transition.event;
  const addressed =
    'payment_link' in data
      ? { ...data, payment_link: withCheckoutUrl(data.payment_link, checkoutBase) }
      : withCheckoutUrl(data, checkoutBase);
  return { ...transition, event: { ...transition.event, data: addressed } };
}

/**
 * Applies a state change to a stored link: reads it, lets `decide` compute the transition from what is stored
 * now (or `undefined` for "nothing to change"), commits it conditionally and retries from a fresh read when a
 * concurrent writer won. However many callers race, exactly one commits each transition and its event.
 * The event carries the link as webhooks show it, `checkout_url` included. It is then handed to the queue; if
 * that send fails the outbox sweeper sends it later, so the failure is logged, not raised: the transition has
 * happened.
 */
export async function applyTransition(
  deps: LinkDependencies & { queue: EventQueue; checkoutBase: string },
  load: () => Promise<PaymentLink>,
  decide: (link: PaymentLink, now: Date) => Transition | undefined,
  /** Runs before each commit; when it throws, nothing is committed and the error is the caller's. */
  beforeCommit?: (transition: Transition) => Promise<void>,
): Promise<{ link: PaymentLink; transition: Transition | undefined }> {
  for (let attempt = 1; ; attempt++) {
    const link = await load();
    const decided = decide(link, deps.now());
    if (!decided) return { link, transition: undefined };
    const transition = withEventCheckoutUrl(decided, deps.checkoutBase);
    await beforeCommit?.(transition);
    try {
      await deps.links.commit(transition);
    } catch (error) {
      if (error instanceof ConcurrentModificationError && attempt < MAX_TRANSITION_ATTEMPTS) continue;
      throw error;
    }
    await publishCommitted(deps.queue, transition.event);
    return { link: transition.after, transition };
  }
}

/**
 * Hands a committed event to the queue. If that send fails the outbox sweeper sends it later, so the failure is
 * logged, not raised: the change it reports has happened.
 */
export async function publishCommitted(queue: EventQueue, event: LinkEvent): Promise<void> {
  try {
    await queue.publish({ id: event.id, account: event.account, mode: event.mode, committed: true });
  } catch (error) {
    logger.warn('Event queued for the outbox sweeper: send failed', { event_id: event.id, error });
  }
}

/** One page of the caller's links, newest first; `next` is the position to continue from. */
export async function listPaymentLinks(
  deps: LinkDependencies,
  principal: Principal,
  query: { limit: number; after?: string | undefined; status?: LinkStatus | undefined },
): Promise<{ links: PaymentLink[]; next: string | undefined }> {
  return deps.links.list({ ...query, account: principal.account, mode: principal.mode, now: deps.now() });
}

/** Ends PSP checkout sessions (implemented by `PspConnections`, which finds the session's connection). */
export interface PspSessions {
  expireSession(account: string, mode: Mode, session: PspSession): Promise<unknown>;
}

type TransitionDependencies = LinkDependencies & {
  queue: EventQueue;
  pspSessions: PspSessions;
  /** A reusable link's open attempts are its payments' sessions. */
  payments: Pick<PaymentRepository, 'listOfLink' | 'save'>;
  checkoutBase: string;
};

/** Sessions one cancel or expiry of a reusable link ends at once (in parallel); a retry ends the rest. */
export const MAX_SESSIONS_ENDED_AT_ONCE = 25;

/**
 * Cancel and expiry of a reusable link end every buyer's open attempt first, as `endDroppedSession` does for a
 * single-use link's one (docs/orchestration.md#one-payable-session): in parallel, at most
 * `MAX_SESSIONS_ENDED_AT_ONCE` per call; each ended one is recorded (its payment canceled) so that a retry does
 * not ask again. Any left open (its PSP could not be asked, or more than fit) throws `PspSessionNotEndedError`,
 * and the caller stores nothing. The link's version moves on with every new buyer session (`noteSession`), so a
 * session opened after the payments were read makes the commit fail, and the retry reads it.
 */
async function endOpenAttempts(
  deps: TransitionDependencies,
  link: PaymentLink,
  ended: Set<string>,
): Promise<void> {
  if (!link.reusable) return;
  const now = deps.now();
  const payments = await deps.payments.listOfLink(link.id, link.mode);
  const open = openSessions({ ...link, psp_session: null }, payments, now).filter(
    (session) => !ended.has(session.id),
  );
  const batch = open.slice(0, MAX_SESSIONS_ENDED_AT_ONCE);
  const results = await Promise.allSettled(
    batch.map(async (session) => {
      const answer = await deps.pspSessions.expireSession(link.account, link.mode, session);
      ended.add(session.id);
      const payment = payments.find((candidate) => candidate.id === session.payment_id);
      const canceled = answer === 'ended' && payment && endedByUs(payment, deps.now());
      if (payment && canceled) await deps.payments.save(canceled, payment).catch(() => undefined);
    }),
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed || open.length > batch.length) {
    logger.warn('Open PSP sessions of a reusable link not all ended', {
      link_id: link.id,
      open: open.length - batch.length + results.filter((result) => result.status === 'rejected').length,
      error: failed?.reason,
    });
    throw new PspSessionNotEndedError(failed?.reason);
  }
}

/**
 * A link whose PSP session no longer fits it (canceled, expired, or changed where the buyer sees it) has no use
 * for that session, and a buyer still on that page must not be able to pay it: end it at its PSP. Cancel and
 * expiry call this *before* storing the change (docs/orchestration.md#one-payable-session): if the PSP cannot
 * end it (whatever the error), `PspSessionNotEndedError` is thrown and the caller stores nothing, so the link
 * keeps naming the session and whoever comes next (a retry, the next sweep) ends it. A session past its own
 * expiry can no longer be paid and needs nothing. `ended` remembers the sessions this call has ended already,
 * so a retry after a lost race does not ask the PSP again.
 */
async function endDroppedSession(
  deps: { pspSessions: PspSessions; now: () => Date },
  before: PaymentLink,
  after: PaymentLink,
  ended: Set<string>,
): Promise<void> {
  const session = before.psp_session;
  if (!session || after.psp_session?.id === session.id || ended.has(session.id)) return;
  if (Date.parse(session.expires_at) <= deps.now().getTime()) return;
  try {
    await deps.pspSessions.expireSession(before.account, before.mode, session);
  } catch (error) {
    logger.warn('PSP session not ended', {
      link_id: before.id,
      session_id: session.id,
      connection_id: session.connection_id,
      error,
    });
    throw new PspSessionNotEndedError(error);
  }
  ended.add(session.id);
}

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
  deps: LinkDependencies & { pspSessions: PspSessions },
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
    try {
      await endDroppedSession(deps, before, after, new Set());
    } catch {
      // Logged by endDroppedSession; the checkout ends or shows that session before it opens another.
    }
    return after;
  }
}

/**
 * The merchant cancels a link: 200 with the canceled link, the same link unchanged when it already was
 * canceled, `invalid_state` when paid or expired. Emits `payment_link.canceled` once however many cancels race.
 * The link's payable PSP session is ended first; when its PSP cannot end it the link stays open
 * (`PspSessionNotEndedError`: 503 with `Retry-After`), so a cancel that answers 200 left no payable session.
 */
export async function cancelPaymentLink(
  deps: TransitionDependencies,
  principal: Principal,
  id: string,
): Promise<PaymentLink> {
  const ended = new Set<string>();
  const { link } = await applyTransition(
    deps,
    () => getPaymentLink(deps, principal, id),
    (current, now) => cancel(current, now),
    async (transition) => {
      await endDroppedSession(deps, transition.before, transition.after, ended);
      await endOpenAttempts(deps, transition.before, ended);
    },
  );
  return link;
}

/**
 * The expiry sweeper: records `expired` (and emits `payment_link.expired`) for up to `batchSize` open links
 * whose `expires_at` has passed. A link that fails is logged and left for the next run.
 */
export async function expireDueLinks(
  deps: TransitionDependencies,
  batchSize: number,
  /** Takes no new link after this returns false (the function's time is running out); the rest waits. */
  hasTimeLeft: () => boolean = () => true,
): Promise<{ expired: number; failed: number }> {
  const due = await deps.links.dueForExpiry(deps.now(), batchSize);
  let expired = 0;
  let failed = 0;
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
        // A session its PSP could not end keeps the link open (reads show it expired): the next run tries again.
        async (transition) => {
          await endDroppedSession(deps, transition.before, transition.after, ended);
          await endOpenAttempts(deps, transition.before, ended);
        },
      );
      if (transition) expired++;
    } catch (error) {
      failed++;
      logger.error('Could not expire payment link', { link_id: id, error });
    }
  }
  return { expired, failed };
}
