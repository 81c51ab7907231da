import { DECLINE_CLASSES, type MandateRef } from '../../domain/mandates.ts';
import type { Payment } from '../../domain/payment.ts';
import {
  CANCELLATION_REASONS,
  type Charging,
  type Dunning,
  type LatestFailure,
  SUBSCRIPTION_STATUSES,
  type Subscription,
} from '../../domain/subscription.ts';
import type { SubscriptionEvent } from '../../domain/subscription-events.ts';
import { INTERVALS, type Recurring } from '../../domain/subscription-schedule.ts';
import { OUTBOX_GRACE_MS } from '../../domain/webhook.ts';
import { type CancelLink, subscriptionPosition } from '../../ports/subscription-repository.ts';
import { storedProvider } from './connection-mapper.ts';
import { storedEventData } from './event-data.ts';
import {
  amount,
  arrayOf,
  boolean,
  itemDecoder,
  lazy,
  mode,
  nullable,
  number,
  objectOf,
  oneOf,
  recordOf,
  string,
} from './item-decoder.ts';
import { paymentFromItem } from './payment-mapper.ts';
import {
  bookEntryKeys,
  bookKeys,
  eventFeedKeys,
  keys,
  merchantPartitionOf,
  outboxKeys,
  shardOf,
  subscriptionKeys,
} from './table-schema.ts';

/**
 * Subscriptions, their events and renewals as stored (docs/data-model.md#subscriptions), read and written through
 * this one mapper, so that a field added later gets its default for older items here and nowhere else (as
 * link-mapper.ts does for links).
 */

/** A subscription link's terms, as a link, a subscription and a sandbox session store them. */
export const recurringDecoder = /* @__PURE__ */ lazy(() =>
  objectOf<Recurring>({
    interval: oneOf(INTERVALS),
    interval_count: number,
    trial_days: nullable(number),
    cycles: nullable(number),
  }),
);

const mandate = () =>
  objectOf<MandateRef>({
    connection_id: string,
    provider: storedProvider,
    customer: string,
    reference: string,
    method: string,
    display: nullable(string),
  });

const dunning = () =>
  objectOf<Dunning>({
    period: number,
    amount,
    failed_attempts: number,
    first_failed_at: string,
    class: oneOf(DECLINE_CLASSES),
    next: oneOf(['retry', 'give_up']),
    update_link_id: nullable(string),
  });

const charging = () =>
  objectOf<Charging>({
    period: number,
    attempt: number,
    payment_id: string,
    amount,
    started_at: string,
    reference: nullable(string),
  });

const latestFailure = () =>
  objectOf<LatestFailure>({
    class: oneOf(DECLINE_CLASSES),
    code: string,
    message: string,
    at: string,
    period: number,
    attempt: number,
  });

/**
 * A subscription's fields: every one stored since subscriptions exist (2026-11-30); a field added later gets its
 * default for older items here (`withDefault`), as link-mapper.ts does for links.
 */
export const subscriptionFromItem = /* @__PURE__ */ itemDecoder<Subscription>('subscription', () => ({
  id: string,
  account: string,
  mode,
  status: oneOf(SUBSCRIPTION_STATUSES),
  link_id: string,
  first_payment_id: string,
  client_reference_id: nullable(string),
  description: nullable(string),
  metadata: nullable(recordOf(string)),
  webhook_url: nullable(string),
  amount,
  recurring: recurringDecoder,
  anchor: string,
  anchor_period: number,
  current_period: number,
  current_period_start: string,
  current_period_end: string,
  periods_paid: number,
  cancel_at_period_end: boolean,
  canceled_at: nullable(string),
  cancellation_reason: nullable(oneOf(CANCELLATION_REASONS)),
  ended_at: nullable(string),
  mandate: mandate(),
  due_at: nullable(string),
  dunning: nullable(dunning()),
  charging: nullable(charging()),
  latest_failure: nullable(latestFailure()),
  event_ids: arrayOf(string),
  version: number,
  created_at: string,
  updated_at: string,
}));

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

/** A renewal is a payment: read by the payment's mapper, which knows `subscription_id` and `decline`. */
export const renewalFromItem = paymentFromItem;

/** A buyer's cancel link (since 2026-11-30); its `ttl` is the store's, not the type's. */
export const cancelLinkFromItem = /* @__PURE__ */ itemDecoder<CancelLink>(
  'cancel link',
  () => ({
    token_hash: string,
    subscription_id: string,
    account: string,
    mode,
    expires_at: string,
    used_at: nullable(string),
    created_at: string,
  }),
  { omit: ['ttl'] },
);
