import { createHash } from 'node:crypto';
import { idFromBytes } from './ids.ts';
import type { Decline, DeclineClass, MandateRef } from './mandates.ts';
import type { Amount } from './money.ts';
import type { Mode } from './principal.ts';
import { periodBounds, type Recurring } from './subscription-schedule.ts';

/**
 * A subscription (docs/subscriptions.md): what a subscription link's paid first period (or its set-up mandate,
 * with a trial) starts, and what charges the buyer's mandate once a period, at the one connection that holds it.
 * Its periods are counted from 1 (0 is the trial); `current_period` is the one it is in: paid, or being collected
 * (`past_due`). Every change is a write conditional on `version`, like a link's.
 */
export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled', 'ended'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The events of a subscription (docs/webhooks.md#subscription-events; built in ./subscription-events.ts). */
export const SUBSCRIPTION_EVENT_TYPES = [
  'subscription.created',
  'subscription.renewed',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.ended',
] as const;
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];

/** Who ended it: the merchant through the API, the buyer through a cancel link, or its retries running out. */
export const CANCELLATION_REASONS = ['requested', 'buyer', 'payment_failed'] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

/** An unpaid period being collected: retried on the account's schedule (soft declines) or through its update link. */
export interface Dunning {
  period: number;
  /** What the period charges: fixed at its first attempt, so a later PATCH changes the next period only. */
  amount: Amount;
  /** Attempts of the period that were declined. */
  failed_attempts: number;
  /** When the period's first charge was due: its retry days count from here. */
  first_failed_at: string;
  /** The class of the latest decline. */
  class: DeclineClass;
  /**
   * What comes at `due_at`, decided with the account's settings when the latest attempt was declined: another
   * attempt (a soft decline with retries left), or the end of the period's collection.
   */
  next: 'retry' | 'give_up';
  /** The link where the buyer pays the period and sets up a new mandate, once one is needed; else null. */
  update_link_id: string | null;
}

/**
 * A charge sent to the PSP whose outcome is not recorded yet. Written before the PSP is asked, so that whatever
 * happens after (a crash, a lost answer, a cancel) the subscription stays on the sweeper's list until the same
 * request, under the same idempotency key, has settled it (docs/subscriptions.md#charging-once).
 */
export interface Charging {
  period: number;
  attempt: number;
  payment_id: string;
  amount: Amount;
  /** When the attempt was written: how long its idempotency key has been in use. */
  started_at: string;
  /** The PSP's reference once it answered that the charge is under way (`pending`). */
  reference: string | null;
}

export interface LatestFailure extends Decline {
  at: string;
  period: number;
  attempt: number;
}

export interface Subscription {
  id: string;
  account: string;
  mode: Mode;
  status: SubscriptionStatus;
  /** The subscription link, and its payment that started the subscription. */
  link_id: string;
  first_payment_id: string;
  /** The buyer's reference from the link's address (docs/api.md#buyer-references): buyer-supplied, unverified. */
  client_reference_id: string | null;
  description: string | null;
  metadata: Record<string, string> | null;
  /** The link's `webhook_url`: where the subscription's events go, beside the account's webhook endpoints. */
  webhook_url: string | null;
  /** What each period charges from the next one not yet attempted. */
  amount: Amount;
  recurring: Recurring;
  /** Where the periods count from (`periodBounds`): the first period's start, or the start of a recovered one. */
  anchor: string;
  anchor_period: number;
  current_period: number;
  current_period_start: string;
  current_period_end: string;
  periods_paid: number;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  cancellation_reason: CancellationReason | null;
  ended_at: string | null;
  /** The mandate it charges, at the connection it is pinned to. */
  mandate: MandateRef;
  /** When the sweeper acts next (`dueStep`); null: nothing is scheduled. */
  due_at: string | null;
  dunning: Dunning | null;
  charging: Charging | null;
  latest_failure: LatestFailure | null;
  /** Ids of its latest events: an event counts once its subscription names it (as a link's `event_ids`). */
  event_ids: string[];
  version: number;
  created_at: string;
  updated_at: string;
}

/**
 * The subscription a payment starts, by the payment's id alone: every path that records the payment (the
 * notification, the sweeper, the buyer's return) names the same subscription, so a conditional create makes one.
 */
export function subscriptionIdOf(paymentId: string): string {
  return idFromBytes('sub', createHash('sha256').update(`subscription-of-payment\0${paymentId}`).digest());
}

/** What starts a subscription: its link's terms, the payment, and the mandate that payment opened. */
export interface SubscriptionStart {
  id: string;
  link: {
    id: string;
    account: string;
    mode: Mode;
    description: string | null;
    metadata: Record<string, string> | null;
    webhook_url: string | null;
    amount: Amount;
    recurring: Recurring;
  };
  payment: { id: string; client_reference_id: string | null };
  mandate: MandateRef;
}

const DAY_MS = 86_400_000;

/**
 * A new subscription at `now`: with a trial, `trialing` until its first charge at the trial's end (period 0 is
 * the trial); without, `active`, its first period paid by the payment and the next charged at that period's end.
 */
export function newSubscription(start: SubscriptionStart, now: Date): Subscription {
  const { link, payment, mandate } = start;
  const trialDays = link.recurring.trial_days ?? 0;
  const anchor = new Date(now.getTime() + trialDays * DAY_MS).toISOString();
  const schedule = { anchor, anchor_period: 1 };
  const first =
    trialDays > 0 ? { start: now, end: new Date(anchor) } : periodBounds(schedule, link.recurring, 1);
  return {
    id: start.id,
    account: link.account,
    mode: link.mode,
    status: trialDays > 0 ? 'trialing' : 'active',
    link_id: link.id,
    first_payment_id: payment.id,
    client_reference_id: payment.client_reference_id,
    description: link.description,
    metadata: link.metadata,
    webhook_url: link.webhook_url,
    amount: link.amount,
    recurring: link.recurring,
    ...schedule,
    current_period: trialDays > 0 ? 0 : 1,
    current_period_start: first.start.toISOString(),
    current_period_end: first.end.toISOString(),
    periods_paid: trialDays > 0 ? 0 : 1,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_reason: null,
    ended_at: null,
    mandate,
    due_at: first.end.toISOString(),
    dunning: null,
    charging: null,
    latest_failure: null,
    event_ids: [],
    version: 1,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

/** What the sweeper does with a subscription once `due_at` has come (docs/subscriptions.md#states). */
export type DueStep =
  /** An attempt was sent and its outcome is unknown: the same request again, under the same key. */
  | { kind: 'settle'; charging: Charging }
  /** A new attempt at a period: its first, or a retry after a soft decline. */
  | { kind: 'charge'; period: number; attempt: number; amount: Amount }
  /** The period's retries are over (or it has none: a hard decline, authentication asked) and it is unpaid. */
  | { kind: 'give_up' }
  /** Canceled at the end of the period, as asked. */
  | { kind: 'cancel' }
  /** Its `cycles` are all paid: it ends with its last period. */
  | { kind: 'end' }
  /** Canceled while a period was collected: its update link is canceled, so that nobody pays it any more. */
  | { kind: 'close_update_link'; link_id: string }
  | { kind: 'none' };

export const isTerminal = (status: SubscriptionStatus): boolean =>
  status === 'canceled' || status === 'ended';

export function dueStep(subscription: Subscription): DueStep {
  if (subscription.charging) return { kind: 'settle', charging: subscription.charging };
  if (subscription.due_at === null) return { kind: 'none' };
  if (isTerminal(subscription.status)) {
    const linkId = subscription.dunning?.update_link_id;
    return linkId ? { kind: 'close_update_link', link_id: linkId } : { kind: 'none' };
  }
  const { dunning } = subscription;
  if (dunning) {
    return dunning.next === 'retry'
      ? {
          kind: 'charge',
          period: dunning.period,
          attempt: dunning.failed_attempts + 1,
          amount: dunning.amount,
        }
      : { kind: 'give_up' };
  }
  if (subscription.cancel_at_period_end) return { kind: 'cancel' };
  const cycles = subscription.recurring.cycles;
  if (cycles !== null && subscription.periods_paid >= cycles) return { kind: 'end' };
  return { kind: 'charge', period: subscription.current_period + 1, attempt: 1, amount: subscription.amount };
}

/**
 * Whether the subscription is over with `period` unpaid (canceled while it was collected, or before it was charged):
 * a payment on that period's update link pays nothing and is given back. A period its update link paid stays paid,
 * whatever became of the subscription after.
 */
export const endedUnpaid = (subscription: Subscription, period: number): boolean =>
  isTerminal(subscription.status) &&
  (subscription.dunning?.period === period || subscription.current_period < period);

export const isDue = (subscription: Subscription, at: Date): boolean =>
  subscription.due_at !== null && Date.parse(subscription.due_at) <= at.getTime();

/**
 * When the mandate is charged next, as the merchant reads it: the due time of a charge or a retry; null when none
 * is coming (ended or canceled, canceled at the period's end, its last cycle paid, or waiting for the buyer to
 * pay through its update link).
 */
export function nextChargeAt(subscription: Subscription): string | null {
  const step = dueStep(subscription);
  return step.kind === 'charge' || step.kind === 'settle' ? subscription.due_at : null;
}

/**
 * The idempotency key of one attempt at the PSP: per (subscription, period, attempt), never per period, since
 * every PSP answers a repeated key with its first answer, declines included (docs/subscriptions.md#charging-once).
 * At most 64 characters, the shortest bound of the PSPs (docs/subscriptions.md#charging-once).
 */
export const chargeKey = (subscriptionId: string, period: number, attempt: number): string =>
  `${subscriptionId}.${period}.${attempt}`;
