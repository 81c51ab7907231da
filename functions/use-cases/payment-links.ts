import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import {
  createPaymentLink as newPaymentLink,
  type PaymentLink,
  type PaymentLinkInput,
  type Transition,
} from '../domain/payment-link.ts';
import type { Principal } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { LinkRepository } from '../ports/link-repository.ts';

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
  return link;
}

/** The caller's link, or `not_found`: another account's or the other mode's link is indistinguishable. */
export async function getPaymentLink(
  deps: LinkDependencies,
  principal: Principal,
  id: string,
): Promise<PaymentLink> {
  const link = id.startsWith('pl_') ? await deps.links.get(id, principal.mode) : undefined;
  if (!link || link.account !== principal.account) throw new NotFoundError(`No payment link ${id}.`);
  return link;
}

const MAX_TRANSITION_ATTEMPTS = 5;

/**
 * Applies a state change to a stored link: reads it, lets `decide` compute the transition from what is stored
 * now (or `undefined` for "nothing to change"), commits it conditionally and retries from a fresh read when a
 * concurrent writer won. However many callers race, exactly one commits each transition and its event.
 * The event is then handed to the queue; if that send fails the outbox sweeper sends it later, so the failure
 * is logged, not raised: the transition has happened.
 */
export async function applyTransition(
  deps: LinkDependencies & { queue: EventQueue },
  load: () => Promise<PaymentLink>,
  decide: (link: PaymentLink, now: Date) => Transition | undefined,
): Promise<{ link: PaymentLink; transition: Transition | undefined }> {
  for (let attempt = 1; ; attempt++) {
    const link = await load();
    const transition = decide(link, deps.now());
    if (!transition) return { link, transition };
    try {
      await deps.links.commit(transition);
    } catch (error) {
      if (error instanceof ConcurrentModificationError && attempt < MAX_TRANSITION_ATTEMPTS) continue;
      throw error;
    }
    try {
      await deps.queue.publish(transition.event);
    } catch (error) {
      logger.warn('Event queued for the outbox sweeper: send failed', {
        eventId: transition.event.id,
        error,
      });
    }
    return { link: transition.after, transition };
  }
}
