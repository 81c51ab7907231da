import { newId } from './ids.ts';
import type { PaymentResource } from './payment.ts';
import type { Mode } from './principal.ts';
import {
  type LatestFailure,
  nextChargeAt,
  type Subscription,
  type SubscriptionEventType,
} from './subscription.ts';
import type { SubscriptionChange } from './subscription-transitions.ts';

export { SUBSCRIPTION_EVENT_TYPES, type SubscriptionEventType } from './subscription.ts';

/**
 * A subscription's webhook events (docs/webhooks.md#subscription-events) and the resource they carry, which the API
 * returns too. An event is written with the change that emits it (`SubscriptionRepository.commit`: the event first,
 * then the subscription naming it, as a link's), so neither counts without the other.
 */
/** The subscription as merchants read it (`GET /v1/subscriptions/{id}`, and every event's `data`). */
export interface SubscriptionResource {
  id: string;
  object: 'subscription';
  mode: Mode;
  status: Subscription['status'];
  link_id: string;
  first_payment_id: string;
  client_reference_id: string | null;
  description: string | null;
  metadata: Record<string, string> | null;
  amount: Subscription['amount'];
  recurring: Subscription['recurring'];
  current_period: number;
  current_period_start: string;
  current_period_end: string;
  periods_paid: number;
  next_charge_at: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  cancellation_reason: Subscription['cancellation_reason'];
  ended_at: string | null;
  /** The mandate it charges (references only) and the connection it is pinned to. */
  mandate: Omit<Subscription['mandate'], 'customer'>;
  latest_failure: LatestFailure | null;
  /** Where the buyer pays the period being collected and sets up a new mandate; null when there is none. */
  update_url: string | null;
  created_at: string;
  updated_at: string;
}

export function subscriptionResource(subscription: Subscription, checkoutBase: string): SubscriptionResource {
  const { customer: _customer, ...mandate } = subscription.mandate;
  const updateLink = subscription.status === 'past_due' ? subscription.dunning?.update_link_id : null;
  return {
    id: subscription.id,
    object: 'subscription',
    mode: subscription.mode,
    status: subscription.status,
    link_id: subscription.link_id,
    first_payment_id: subscription.first_payment_id,
    client_reference_id: subscription.client_reference_id,
    description: subscription.description,
    metadata: subscription.metadata,
    amount: subscription.amount,
    recurring: subscription.recurring,
    current_period: subscription.current_period,
    current_period_start: subscription.current_period_start,
    current_period_end: subscription.current_period_end,
    periods_paid: subscription.periods_paid,
    next_charge_at: nextChargeAt(subscription),
    cancel_at_period_end: subscription.cancel_at_period_end,
    canceled_at: subscription.canceled_at,
    cancellation_reason: subscription.cancellation_reason,
    ended_at: subscription.ended_at,
    mandate,
    latest_failure: subscription.latest_failure,
    update_url: updateLink ? `${checkoutBase}/${updateLink}` : null,
    created_at: subscription.created_at,
    updated_at: subscription.updated_at,
  };
}

/** `data` of a subscription event: the subscription right after the change, and the payment a charge made. */
export type SubscriptionEventData = SubscriptionResource & { payment?: PaymentResource };

export interface SubscriptionEvent {
  id: string;
  type: SubscriptionEventType;
  subscription_id: string;
  /** Not about a link (./webhook.ts `isLinkEvent`). */
  link_id?: undefined;
  account: string;
  mode: Mode;
  created_at: string;
  /** The subscription link's `webhook_url` when the event was made: its own delivery goes there. */
  webhook_url: string | null;
  data: SubscriptionEventData;
}

/** Its latest event ids a subscription keeps: enough for every event still being delivered (days), not years'. */
export const SUBSCRIPTION_EVENT_IDS_KEPT = 50;

/** A change with its events built: ids drawn, the subscription naming them, each carrying it as it is after. */
export interface CommittedChange {
  before: Subscription | undefined;
  after: Subscription;
  events: SubscriptionEvent[];
}

export function withEvents(change: SubscriptionChange, checkoutBase: string, now: Date): CommittedChange {
  const ids = change.events.map(() => newId('evt'));
  const after: Subscription = {
    ...change.after,
    event_ids: [...change.after.event_ids, ...ids].slice(-SUBSCRIPTION_EVENT_IDS_KEPT),
  };
  const resource = subscriptionResource(after, checkoutBase);
  const events = change.events.map(
    (event, index): SubscriptionEvent => ({
      id: ids[index] as string,
      type: event.type,
      subscription_id: after.id,
      account: after.account,
      mode: after.mode,
      created_at: now.toISOString(),
      webhook_url: after.webhook_url,
      data: event.payment ? { ...resource, payment: event.payment } : resource,
    }),
  );
  return { before: change.before, after, events };
}
