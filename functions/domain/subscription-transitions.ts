import { InvalidStateError, ValidationError } from './errors.ts';
import type { Decline, MandateRef } from './mandates.ts';
import type { Amount } from './money.ts';
import type { PaymentResource } from './payment.ts';
import {
  type CancellationReason,
  type Charging,
  type Dunning,
  isTerminal,
  type Subscription,
  type SubscriptionEventType,
} from './subscription.ts';
import { type CollectionSettings, givesUpAt, periodBounds, retryAt } from './subscription-schedule.ts';

/**
 * The changes of a subscription (docs/subscriptions.md#states), pure: each returns the subscription after it, one
 * version on, with the events it emits (built with the resource by `withEvents`, ./subscription-events.ts), or
 * undefined when there is nothing to change (a repeat, a race already lost). The times of the schedule come from the
 * subscription itself (a charge is dated when it was due), so the sweeper and a test clock's `advance` compute the
 * same periods; `now` dates the records.
 */
export interface SubscriptionChange {
  /** Undefined when the change creates the subscription. */
  before: Subscription | undefined;
  after: Subscription;
  events: { type: SubscriptionEventType; payment?: PaymentResource }[];
}

const changed = (
  before: Subscription,
  changes: Partial<Subscription>,
  now: Date,
  events: SubscriptionChange['events'] = [],
): SubscriptionChange => ({
  before,
  after: { ...before, ...changes, version: before.version + 1, updated_at: now.toISOString() },
  events,
});

export const started = (subscription: Subscription): SubscriptionChange => ({
  before: undefined,
  after: subscription,
  events: [{ type: 'subscription.created' }],
});

/** An attempt is about to be sent: from now on the subscription keeps it until its outcome is recorded. */
export function chargeStarted(subscription: Subscription, charging: Charging, now: Date): SubscriptionChange {
  return changed(subscription, { charging }, now);
}

/** Whether `charging` is the attempt the subscription still waits on (a settled one is never settled again). */
const awaits = (subscription: Subscription, charging: Charging): boolean =>
  subscription.charging?.payment_id === charging.payment_id;

/**
 * The attempt's charge succeeded: its period is paid and becomes the current one, and the next is due at its end.
 * One settled after the subscription was canceled is still recorded (money moved, and the merchant is told, so
 * that they can refund it); the subscription stays canceled.
 */
export function chargeSucceeded(
  subscription: Subscription,
  charging: Charging,
  payment: PaymentResource,
  now: Date,
): SubscriptionChange | undefined {
  if (!awaits(subscription, charging)) return undefined;
  const events = [{ type: 'subscription.renewed' as const, payment }];
  if (isTerminal(subscription.status))
    return changed(subscription, { charging: null, due_at: null }, now, events);
  return changed(subscription, paidPeriod(subscription, charging.period), now, events);
}

/** The subscription with `period` paid: current, active, no dunning, due again at its end. */
function paidPeriod(subscription: Subscription, period: number): Partial<Subscription> {
  const bounds = periodBounds(subscription, subscription.recurring, period);
  return {
    status: 'active',
    current_period: period,
    current_period_start: bounds.start.toISOString(),
    current_period_end: bounds.end.toISOString(),
    periods_paid: subscription.periods_paid + 1,
    dunning: null,
    charging: null,
    due_at: bounds.end.toISOString(),
  };
}

/** The charge is under way at the PSP (a bank debit): the sweeper asks again after `checkAfterMs`. */
export function chargePending(
  subscription: Subscription,
  charging: Charging,
  reference: string | null,
  checkAfterMs: number,
  now: Date,
): SubscriptionChange | undefined {
  if (!awaits(subscription, charging)) return undefined;
  return changed(
    subscription,
    {
      charging: { ...charging, reference: reference ?? charging.reference },
      due_at: new Date(now.getTime() + checkAfterMs).toISOString(),
    },
    now,
  );
}

/**
 * The attempt was declined. The period is collected: `past_due` (with its event the first time), its next attempt
 * on the account's retry days after a soft decline, none after a hard one or authentication asked, the end of its
 * collection on the last retry day. `updateLinkId`: the link the buyer pays at, which the caller made for a
 * decline that needs one (`needsUpdateLink`). A decline settled after a cancel changes nothing but the attempt; one
 * settled after a cancel at the period's end cancels now, as that cancel does a `past_due` subscription.
 */
export function chargeDeclined(
  subscription: Subscription,
  charging: Charging,
  decline: Decline,
  payment: PaymentResource,
  context: { settings: CollectionSettings; updateLinkId: string | null; now: Date },
): SubscriptionChange | undefined {
  if (!awaits(subscription, charging)) return undefined;
  const { now } = context;
  if (isTerminal(subscription.status)) return changed(subscription, { charging: null, due_at: null }, now);
  const latest_failure = {
    ...decline,
    at: now.toISOString(),
    period: charging.period,
    attempt: charging.attempt,
  };
  const failedEvent = { type: 'subscription.payment_failed' as const, payment };
  // Asked to end with the period paid, it would be past due now, which a cancel at the period's end cancels at
  // once: no retry, no update link for a buyer who is leaving (docs/subscriptions.md#the-resource).
  if (subscription.cancel_at_period_end) {
    return changed(
      subscription,
      {
        status: 'canceled',
        canceled_at: now.toISOString(),
        cancel_at_period_end: false,
        charging: null,
        due_at: null,
        latest_failure,
      },
      now,
      [failedEvent, { type: 'subscription.canceled' }],
    );
  }
  const days = context.settings.subscription_retry_days;
  const earlier = subscription.dunning?.period === charging.period ? subscription.dunning : undefined;
  const firstFailedAt = earlier
    ? new Date(earlier.first_failed_at)
    : chargeDueAt(subscription, charging.period);
  const failed = (earlier?.failed_attempts ?? 0) + 1;
  const retry = decline.class === 'soft' ? retryAt(days, firstFailedAt, failed) : undefined;
  const dunning: Dunning = {
    period: charging.period,
    amount: charging.amount,
    failed_attempts: failed,
    first_failed_at: firstFailedAt.toISOString(),
    class: decline.class,
    next: retry ? 'retry' : 'give_up',
    update_link_id: earlier?.update_link_id ?? context.updateLinkId,
  };
  const bounds = periodBounds(subscription, subscription.recurring, charging.period);
  const events: SubscriptionChange['events'] = [failedEvent];
  if (subscription.status !== 'past_due') events.push({ type: 'subscription.past_due' });
  return changed(
    subscription,
    {
      status: 'past_due',
      current_period: charging.period,
      current_period_start: bounds.start.toISOString(),
      current_period_end: bounds.end.toISOString(),
      dunning,
      charging: null,
      latest_failure,
      due_at: (retry ?? givesUpAt(days, firstFailedAt)).toISOString(),
    },
    now,
    events,
  );
}

/**
 * When a period's first charge was due: its start, where the period before ends. Not `due_at`, which a charge under
 * way moves to when it is asked about next (`chargePending`).
 */
export const chargeDueAt = (subscription: Subscription, period: number): Date =>
  periodBounds(subscription, subscription.recurring, period).start;

/**
 * Whether the period being collected needs an update link: after a decline no retry can mend (hard,
 * authentication asked), or once its retries end and the account leaves it `past_due`.
 */
export function needsUpdateLink(
  dunning: Pick<Dunning, 'class' | 'update_link_id'> | null,
  settings: CollectionSettings,
  givingUp = false,
): boolean {
  if (!dunning || dunning.update_link_id !== null) return false;
  if (dunning.class !== 'soft') return true;
  return givingUp && settings.subscription_after_retries === 'leave_past_due';
}

/**
 * The period's collection ended unpaid: canceled (`payment_failed`, its update link then canceled: `dueOnceEnded`)
 * or left `past_due` with nothing scheduled, as the account's settings say. Left past due, the buyer can still pay
 * through the update link (`updateLinkId`).
 */
export function gaveUp(
  subscription: Subscription,
  settings: CollectionSettings,
  updateLinkId: string | null,
  now: Date,
): SubscriptionChange | undefined {
  const { dunning } = subscription;
  if (!dunning || subscription.charging || isTerminal(subscription.status)) return undefined;
  if (settings.subscription_after_retries === 'cancel') {
    return changed(
      subscription,
      {
        status: 'canceled',
        canceled_at: subscription.due_at ?? now.toISOString(),
        cancellation_reason: 'payment_failed',
        cancel_at_period_end: false,
        due_at: dueOnceEnded(subscription, now),
      },
      now,
      [{ type: 'subscription.canceled' }],
    );
  }
  const update_link_id = dunning.update_link_id ?? updateLinkId;
  return changed(subscription, { dunning: { ...dunning, update_link_id }, due_at: null }, now);
}

/**
 * When a subscription that ends now is due next: an attempt under way is still settled at its time; one that was
 * collecting a period through its update link is due at once, to cancel that link (`close_update_link`).
 */
function dueOnceEnded(subscription: Subscription, now: Date): string | null {
  if (subscription.charging) return subscription.due_at;
  return subscription.dunning?.update_link_id ? now.toISOString() : null;
}

/** The update link of a subscription that ended was canceled (or can no longer be paid): nothing more is due. */
export function updateLinkClosed(subscription: Subscription, now: Date): SubscriptionChange | undefined {
  if (!isTerminal(subscription.status) || subscription.charging || subscription.due_at === null)
    return undefined;
  return changed(subscription, { due_at: null }, now);
}

/** The period ended that the cancel was asked for: canceled, as asked, when it was due. */
export function canceledAtPeriodEnd(subscription: Subscription, now: Date): SubscriptionChange | undefined {
  if (!subscription.cancel_at_period_end || isTerminal(subscription.status)) return undefined;
  return changed(
    subscription,
    { status: 'canceled', canceled_at: subscription.current_period_end, due_at: null },
    now,
    [{ type: 'subscription.canceled' }],
  );
}

/** Its last cycle's period ended: the subscription has run its course. */
export function ended(subscription: Subscription, now: Date): SubscriptionChange | undefined {
  if (isTerminal(subscription.status)) return undefined;
  return changed(
    subscription,
    { status: 'ended', ended_at: subscription.current_period_end, due_at: null },
    now,
    [{ type: 'subscription.ended' }],
  );
}

/**
 * A cancel (the merchant's, or the buyer's through a cancel link). Now: `canceled` at once, its event sent; an
 * attempt under way is still settled (the subscription stays on the sweeper's list until it is), and an update link
 * is canceled (`dueOnceEnded`). At the period's
 * end: nothing more is charged and it is canceled when the period ends; a `past_due` subscription, whose period
 * is unpaid, is canceled now. A canceled subscription is returned unchanged (undefined); an ended one cannot be.
 */
export function cancel(
  subscription: Subscription,
  options: { atPeriodEnd: boolean; reason: CancellationReason },
  now: Date,
): SubscriptionChange | undefined {
  if (subscription.status === 'canceled') return undefined;
  if (subscription.status === 'ended')
    throw new InvalidStateError('An ended subscription cannot be canceled.');
  if (options.atPeriodEnd && subscription.status !== 'past_due') {
    if (subscription.cancel_at_period_end) return undefined;
    return changed(
      subscription,
      {
        cancel_at_period_end: true,
        cancellation_reason: options.reason,
        due_at: subscription.charging ? subscription.due_at : subscription.current_period_end,
      },
      now,
    );
  }
  return changed(
    subscription,
    {
      status: 'canceled',
      canceled_at: now.toISOString(),
      cancellation_reason: options.reason,
      cancel_at_period_end: false,
      due_at: dueOnceEnded(subscription, now),
    },
    now,
    [{ type: 'subscription.canceled' }],
  );
}

/** What the merchant may change (`PATCH`): `metadata` (replaced whole, null clears) and the amount of later periods. */
export interface SubscriptionChanges {
  metadata?: Record<string, string> | null | undefined;
  amount?: Amount | undefined;
}

/**
 * The merchant's change: `metadata` at once; `amount` from the next period not yet attempted (an attempt, and a
 * period being collected, keep theirs). Only a subscription that is not over changes; the currency never does.
 */
export function update(
  subscription: Subscription,
  changes: SubscriptionChanges,
  now: Date,
): SubscriptionChange {
  if (isTerminal(subscription.status)) {
    throw new InvalidStateError(`A ${subscription.status} subscription cannot be updated.`);
  }
  if (changes.amount && changes.amount.currency !== subscription.amount.currency) {
    throw new ValidationError([
      {
        pointer: '/amount/currency',
        detail: `Must be ${subscription.amount.currency}, the currency of the subscription.`,
      },
    ]);
  }
  return changed(
    subscription,
    {
      ...(changes.metadata !== undefined ? { metadata: changes.metadata } : {}),
      ...(changes.amount
        ? { amount: { value: changes.amount.value, currency: changes.amount.currency } }
        : {}),
    },
    now,
  );
}

/**
 * The buyer paid the period being collected through its update link, and set up a new mandate there (at any
 * connection that holds mandates): the subscription is pinned to it and active again. A period whose scheduled
 * end has passed starts again now, so that the buyer gets the period they paid for.
 */
export function recovered(
  subscription: Subscription,
  update: { period: number; mandate: MandateRef; payment: PaymentResource },
  now: Date,
): SubscriptionChange | undefined {
  const { dunning } = subscription;
  if (subscription.status !== 'past_due' || dunning?.period !== update.period || subscription.charging) {
    return undefined;
  }
  const scheduled = periodBounds(subscription, subscription.recurring, update.period);
  const schedule =
    scheduled.end.getTime() <= now.getTime()
      ? { anchor: now.toISOString(), anchor_period: update.period }
      : { anchor: subscription.anchor, anchor_period: subscription.anchor_period };
  const anchored = { ...subscription, ...schedule };
  return changed(
    subscription,
    { ...schedule, ...paidPeriod(anchored, update.period), mandate: update.mandate },
    now,
    [{ type: 'subscription.renewed', payment: update.payment }],
  );
}
