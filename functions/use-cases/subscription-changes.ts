import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { Subscription } from '../domain/subscription.ts';
import { type CommittedChange, type SubscriptionEvent, withEvents } from '../domain/subscription-events.ts';
import type { SubscriptionChange } from '../domain/subscription-transitions.ts';
import { logger } from '../logger.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { SubscriptionRepository } from '../ports/subscription-repository.ts';

/**
 * Reading a merchant's subscription and changing it: what every use case of subscriptions builds on (the API, the
 * charge sweeper, the hook of a paid subscription link), as link-transitions.ts is for links.
 */

export interface SubscriptionChangeDependencies {
  subscriptions: SubscriptionRepository;
  queue: EventQueue;
  now: () => Date;
  /** Where the update links' pages are (`update_url`). */
  checkoutBase: string;
}

/** The caller's subscription, or `not_found`: another account's or the other mode's is indistinguishable. */
export async function getSubscription(
  deps: Pick<SubscriptionChangeDependencies, 'subscriptions'>,
  principal: Principal,
  id: string,
): Promise<Subscription> {
  const subscription = await deps.subscriptions.get(id, principal.mode);
  if (!subscription || subscription.account !== principal.account) {
    throw new NotFoundError(`No subscription ${id}.`);
  }
  return subscription;
}

/** How often a change is decided again after a concurrent writer won, before the conflict is the caller's. */
const MAX_CHANGE_ATTEMPTS = 5;

/**
 * Applies a change to a stored subscription: reads it, lets `decide` compute the change from what is stored now (or
 * undefined for "nothing to change"), commits it with its events conditionally, and decides again from a fresh read
 * when a concurrent writer won. The events are then handed to the queue; a send that fails is left to the outbox
 * sweeper. Answers the subscription as it is after, and whether this call changed it.
 */
export async function applyChange(
  deps: SubscriptionChangeDependencies,
  ref: { id: string; mode: Principal['mode'] },
  decide: (subscription: Subscription, now: Date) => SubscriptionChange | undefined,
): Promise<{ subscription: Subscription; changed: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const subscription = await deps.subscriptions.get(ref.id, ref.mode);
    if (!subscription) throw new NotFoundError(`No subscription ${ref.id}.`);
    const now = deps.now();
    const change = decide(subscription, now);
    if (!change) return { subscription, changed: false };
    const committed = withEvents(change, deps.checkoutBase, now);
    try {
      await deps.subscriptions.commit(committed);
    } catch (error) {
      if (error instanceof ConcurrentModificationError && attempt < MAX_CHANGE_ATTEMPTS) continue;
      throw error;
    }
    await publishEvents(deps.queue, committed);
    return { subscription: committed.after, changed: true };
  }
}

/**
 * Hands committed events to the queue. A send that fails is logged, not raised: the change has happened, and the
 * outbox sweeper sends its events later.
 */
export async function publishEvents(queue: EventQueue, change: CommittedChange): Promise<void> {
  await Promise.all(
    change.events.map((event: SubscriptionEvent) =>
      queue
        .publish({ id: event.id, account: event.account, mode: event.mode, committed: true })
        .catch((error: unknown) =>
          logger.warn('Event queued for the outbox sweeper: send failed', { event_id: event.id, error }),
        ),
    ),
  );
}
