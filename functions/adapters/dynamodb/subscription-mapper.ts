import type { Payment } from '../../domain/payment.ts';
import type { Subscription } from '../../domain/subscription.ts';
import type { SubscriptionEvent } from '../../domain/subscription-events.ts';
import { OUTBOX_GRACE_MS } from '../../domain/webhook.ts';
import { subscriptionPosition } from '../../ports/subscription-repository.ts';
import { storedEventData } from './event-data.ts';
import {
  bookEntryKeys,
  bookKeys,
  eventFeedKeys,
  keys,
  merchantPartitionOf,
  outboxKeys,
  shardOf,
  subscriptionKeys,
  withoutKeys,
} from './table-schema.ts';

/**
 * Subscriptions, their events and renewals as stored (docs/data-model.md#subscriptions), read and written through
 * this one mapper, so that a field added later gets its default for older items here and nowhere else (as
 * link-mapper.ts does for links).
 */

/** What an item written before a field existed reads as: none yet, every field is as old as subscriptions. */
const subscriptionDefaults = (): Partial<Subscription> => ({});

export function subscriptionFromItem(item: Record<string, unknown>): Subscription {
  return { ...subscriptionDefaults(), ...withoutKeys<Subscription>(item) };
}

/**
 * The stored item with its index keys: the tenant's listing (gsi1, which never changes), and, while something is
 * scheduled, the charge sweeper's list (gsi3 by `due_at`; absent, the next write drops it from there).
 */
export function subscriptionToItem(subscription: Subscription) {
  const due =
    subscription.due_at === null
      ? {}
      : {
          gsi3pk: subscriptionKeys.dueShard(shardOf(subscription.id)),
          gsi3sk: `${subscription.due_at}#${subscription.id}`,
        };
  return {
    ...subscriptionKeys.subscription(subscription.id, subscription.mode),
    gsi1pk: merchantPartitionOf(
      subscriptionKeys.listing(subscription.account, subscription.mode),
      subscription.id,
    ),
    gsi1sk: subscriptionPosition(subscription),
    ...due,
    ...subscription,
  };
}

/**
 * A subscription event as stored, in the outbox from the start (as a link's: `eventItem`, link-repository.ts) and in
 * its tenant's feed; its `data` deflated (event-data.ts).
 */
export function subscriptionEventItem(event: SubscriptionEvent) {
  return {
    ...keys.event(event.id, event.mode),
    ...eventFeedKeys(event),
    ...outboxKeys(event.id, new Date(Date.parse(event.created_at) + OUTBOX_GRACE_MS)),
    ...event,
    data: storedEventData(event.data),
    status: 'pending',
    attempts: [],
    attempt_count: 0,
    delivery_seq: 0,
    round_attempts: 0,
  };
}

/**
 * A renewal's payment beside its subscription, and in the account's books (gsi1, as every payment: its keys never
 * change). It holds no personal data and is settled when written, so it is on no sweeper's list.
 */
export function renewalToItem(payment: Payment & { subscription_id: string }) {
  return {
    ...subscriptionKeys.renewal(payment.subscription_id, payment.mode, payment.id),
    ...bookEntryKeys(bookKeys.payments(payment.account, payment.mode), undefined, payment),
    ...payment,
  };
}

export const renewalFromItem = (item: Record<string, unknown>): Payment => withoutKeys<Payment>(item);
