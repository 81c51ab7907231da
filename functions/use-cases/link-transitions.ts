import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import type { LinkEvent, LinkSnapshot, Transition } from '../domain/link-events.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import type { Principal } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { LinkRepository } from '../ports/link-repository.ts';

/**
 * Reading a merchant's link and moving it from one state to the next: what every use case that changes a link
 * (cancel and expiry, payments, refunds) builds on, so none of them depends on another for it.
 */

export interface LinkDependencies {
  links: LinkRepository;
  now: () => Date;
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

/** How often a transition is decided again after a concurrent writer won, before the conflict is the caller's. */
export const MAX_TRANSITION_ATTEMPTS = 5;

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
  /**
   * Runs before each commit; when it throws, nothing is committed and the error is the caller's, but for
   * `ConcurrentModificationError`: the link changed meanwhile, and the decision is taken again from a fresh read.
   */
  beforeCommit?: (transition: Transition) => Promise<void>,
): Promise<{ link: PaymentLink; transition: Transition | undefined }> {
  for (let attempt = 1; ; attempt++) {
    const link = await load();
    const decided = decide(link, deps.now());
    if (!decided) return { link, transition: undefined };
    const transition = withEventCheckoutUrl(decided, deps.checkoutBase);
    try {
      await beforeCommit?.(transition);
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
