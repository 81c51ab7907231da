import { describe, expect, it } from 'vitest';
import type { PaymentResource } from '../../functions/domain/payment.ts';
import {
  dueStep,
  endedUnpaid,
  newSubscription,
  nextChargeAt,
  type Subscription,
} from '../../functions/domain/subscription.ts';
import { DEFAULT_COLLECTION } from '../../functions/domain/subscription-schedule.ts';
import {
  cancel,
  chargeDeclined,
  chargeStarted,
  gaveUp,
  recovered,
  type SubscriptionChange,
  updateLinkClosed,
} from '../../functions/domain/subscription-transitions.ts';

/**
 * What a subscription that ends while a period is collected owes its update link (docs/subscriptions.md#update-links):
 * it stays due until the link is canceled, and a payment of that link's period pays nothing once it ended unpaid.
 */

const MANDATE = {
  connection_id: 'pc_sandbox',
  provider: 'sandbox',
  customer: 'sbc_1',
  reference: 'sbm_1',
  method: 'card',
  display: null,
} as const;
const START = new Date('2027-01-10T12:00:00.000Z');
const PAYMENT = { id: 'pay_renewal' } as PaymentResource;

const changedTo = (change: SubscriptionChange | undefined): Subscription => {
  if (!change) throw new Error('no change');
  return change.after;
};

function active(): Subscription {
  return newSubscription(
    {
      id: 'sub_1',
      link: {
        id: 'pl_1',
        account: 'acme',
        mode: 'test',
        description: 'Membership',
        metadata: null,
        webhook_url: null,
        amount: { value: '9.90', currency: 'EUR' },
        recurring: { interval: 'month', interval_count: 1, trial_days: null, cycles: null },
      },
      payment: { id: 'pay_first', client_reference_id: null },
      mandate: MANDATE,
    },
    START,
  );
}

/** Period 2 declined hard: past due, collected through its update link only. */
function pastDue(): Subscription {
  const subscription = active();
  const at = new Date(subscription.current_period_end);
  const charging = {
    period: 2,
    attempt: 1,
    payment_id: 'pay_renewal',
    amount: subscription.amount,
    started_at: at.toISOString(),
    reference: null,
  };
  const charged = changedTo(chargeStarted(subscription, charging, at));
  const decline = { class: 'hard', code: 'sandbox:lost_card', message: 'Lost card' } as const;
  const context = { settings: DEFAULT_COLLECTION, updateLinkId: 'pl_update', now: at };
  return changedTo(chargeDeclined(charged, charging, decline, PAYMENT, context));
}

describe('a subscription canceled while its update link collects a period', () => {
  it('is due at once to cancel that link, and charges nothing', () => {
    const now = new Date('2027-02-11T08:00:00.000Z');

    const canceled = changedTo(cancel(pastDue(), { atPeriodEnd: false, reason: 'requested' }, now));

    expect(canceled).toMatchObject({ status: 'canceled', due_at: now.toISOString() });
    expect(dueStep(canceled)).toEqual({ kind: 'close_update_link', link_id: 'pl_update' });
    expect(nextChargeAt(canceled)).toBeNull();
  });

  it('is due for nothing more once the link is canceled', () => {
    const now = new Date('2027-02-11T08:00:00.000Z');
    const canceled = changedTo(cancel(pastDue(), { atPeriodEnd: false, reason: 'buyer' }, now));

    const closed = changedTo(updateLinkClosed(canceled, now));

    expect(closed.due_at).toBeNull();
    expect(dueStep(closed)).toEqual({ kind: 'none' });
    expect(updateLinkClosed(closed, now)).toBeUndefined();
  });

  it('given up (the account cancels after its retries) is due to cancel the link too', () => {
    const subscription = pastDue();
    const now = new Date(subscription.due_at as string);

    const canceled = changedTo(gaveUp(subscription, DEFAULT_COLLECTION, null, now));

    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'payment_failed' });
    expect(dueStep(canceled)).toEqual({ kind: 'close_update_link', link_id: 'pl_update' });
  });

  it('without an update link is due for nothing', () => {
    const canceled = changedTo(cancel(active(), { atPeriodEnd: false, reason: 'requested' }, START));

    expect(canceled.due_at).toBeNull();
    expect(dueStep(canceled)).toEqual({ kind: 'none' });
  });
});

describe('a payment of an update link’s period', () => {
  it('pays nothing once the subscription was canceled with that period unpaid', () => {
    const canceled = changedTo(cancel(pastDue(), { atPeriodEnd: false, reason: 'requested' }, START));

    expect(endedUnpaid(canceled, 2)).toBe(true);
  });

  it('pays nothing for a period the subscription ended before charging', () => {
    const canceled = changedTo(cancel(active(), { atPeriodEnd: false, reason: 'requested' }, START));

    expect(endedUnpaid(canceled, 2)).toBe(true);
  });

  it('that paid the period stays paid when the subscription is canceled after', () => {
    const now = new Date('2027-02-11T08:00:00.000Z');
    const paid = changedTo(recovered(pastDue(), { period: 2, mandate: MANDATE, payment: PAYMENT }, now));

    const canceled = changedTo(cancel(paid, { atPeriodEnd: false, reason: 'requested' }, now));

    expect(endedUnpaid(canceled, 2)).toBe(false);
  });

  it('is not refused while the subscription still collects it', () => {
    expect(endedUnpaid(pastDue(), 2)).toBe(false);
  });
});
