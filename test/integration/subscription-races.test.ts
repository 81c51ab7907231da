import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  paymentRepository,
  pspConnectionRepository,
  sandboxMandateStore,
  sandboxSessionStore,
} from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Payment } from '../../functions/domain/payment.ts';
import type { PspSession } from '../../functions/domain/payment-link.ts';
import type { Subscription } from '../../functions/domain/subscription.ts';
import {
  type HoldsMandates,
  type MandateCharge,
  type MandateChargeResult,
  type Psp,
  PspOutageError,
} from '../../functions/ports/psp.ts';
import { subscriptionCharges } from '../../functions/psp-dependencies.ts';
import { paySandboxSession } from '../../functions/use-cases/sandbox-checkout.ts';
import { type ChargeDependencies, runDue } from '../../functions/use-cases/subscription-charges.ts';
import { updateLinkIdOf } from '../../functions/use-cases/subscription-update-links.ts';
import { sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { navigate } from '../support/navigate.ts';
import {
  chargesOf,
  days,
  MONTHLY,
  payOnSandbox,
  renewalsOf,
  runAt,
  stored,
  subscriptionWorld,
} from '../support/subscriptions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * Subscriptions whose writers interleave (docs/subscriptions.md#charging-once): a merchant's or a buyer's request
 * lands while a renewal is at the PSP. Each test holds the sweeper's charge at the PSP's door (`heldCharge`), makes
 * the other request, then lets the PSP answer.
 */

let stack: TestStack;
let receiver: Receiver;
const { account, subscribe, webhooksOf } = subscriptionWorld(() => ({ stack, receiver }), 'subs-races');

beforeAll(async () => {
  stack = await startTestStack({ schedules: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.stop();
});

/**
 * The sweeper's use case at `at`, whose first charge at the PSP goes through `around` (which sends it with `send`):
 * a test holds it while another request lands, or loses its answer.
 */
function aroundCharge(
  at: string,
  around: (send: () => Promise<MandateChargeResult>) => Promise<MandateChargeResult>,
): ChargeDependencies {
  const deps = { ...subscriptionCharges(), now: () => new Date(at) };
  const { psps } = deps;
  let first = true;
  const charge = (psp: Psp & HoldsMandates) => (request: MandateCharge) => {
    const send = () => psp.chargeMandate(request);
    if (!first) return send();
    first = false;
    return around(send);
  };
  return {
    ...deps,
    psps: {
      connection: (id) => psps.connection(id),
      adapter: async (connection) => {
        const psp = (await psps.adapter(connection)) as Psp & HoldsMandates;
        return new Proxy(psp, {
          get: (target, property) => {
            if (property === 'chargeMandate') return charge(target);
            const value = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      },
    },
  };
}

/** The sweeper's run at `at`, whose charge waits at the PSP's door while `meanwhile` runs. */
const runHeld = (subscription: Subscription, at: string, meanwhile: () => Promise<void>) =>
  runDue(
    aroundCharge(at, async (send) => {
      await meanwhile();
      return send();
    }),
    subscription,
    new Date(at),
  );

describe('a cancel at the period end while the renewal is at the PSP', () => {
  it('cancels a subscription whose renewal was declined at once, and never retries it', async () => {
    const key = await account('renewal_soft_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    const after = await runHeld(subscription, due, async () => {
      const asked = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
        key: key.api_key,
        body: { at_period_end: true },
      });
      expect(asked.status).toBe(200);
    });

    expect(after).toMatchObject({ status: 'canceled', cancellation_reason: 'requested', due_at: null });
    for (const day of [1, 3, 5, 7]) await runAt(subscription, days(due, day));
    expect(await chargesOf(subscription)).toHaveLength(1);
    expect(await stored(subscription.id)).toMatchObject({ status: 'canceled' });
    await eventually(() =>
      webhooksOf(key, subscription.id).some((event) => event.type === 'subscription.canceled'),
    );
  });

  it('cancels the update link made for a renewal declined hard, which nobody is to pay', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    const after = await runHeld(subscription, due, async () => {
      await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
        key: key.api_key,
        body: { at_period_end: true },
      });
    });

    expect(after).toMatchObject({ status: 'canceled', dunning: null });
    expect((await storedLink(updateLinkIdOf(subscription.id, 2))).status).toBe('canceled');
  });
});

describe('an update link whose subscription was canceled', () => {
  it('takes no money from the buyer', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const declined = await runAt(subscription, subscription.current_period_end);
    const updateLinkId = declined?.dunning?.update_link_id as string;
    const read = await stack.request('GET', `/v1/subscriptions/${subscription.id}`, { key: key.api_key });
    const canceled = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: key.api_key,
    });
    expect(canceled.body).toMatchObject({ status: 'canceled' });

    await payOnSandbox(stack, { id: updateLinkId, checkout_url: read.body.update_url }).catch(() => {});

    const books = await stack.request('GET', '/v1/payments', { key: key.api_key });
    const taken = books.body.data.filter(
      (payment: { id: string; status: string; subscription_id?: string }) =>
        payment.status === 'succeeded' &&
        payment.subscription_id === undefined &&
        payment.id !== subscription.first_payment_id,
    );
    expect(taken).toEqual([]);
  });

  it('refunds in full, once, a session paid at the PSP before the cancel, whose notifications come after, re-sent at once', async () => {
    const { key, subscription, linkId, session } = await paidBeforeTheCancel();

    const canceled = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: key.api_key,
    });
    const notified = await Promise.all(Array.from({ length: 8 }, () => notifyPaid(linkId, session)));

    expect(canceled.body).toMatchObject({ status: 'canceled' });
    expect(notified.map((response) => response.status)).toEqual(Array(8).fill(200));
    expect((await storedLink(linkId)).refunds).toEqual([
      expect.objectContaining({
        payment_id: session.payment_id,
        amount: { value: '10.50', currency: 'EUR' },
        status: 'succeeded',
        reason: 'duplicate',
      }),
    ]);
    expect(await stored(subscription.id)).toMatchObject({
      status: 'canceled',
      periods_paid: 1,
      due_at: null,
    });
    const events = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: key.api_key });
    const types = events.body.data.map((event: { type: string }) => event.type);
    expect(types.sort()).toEqual(['payment_link.paid', 'refund.succeeded']);
  });

  it('keeps the payment (the period paid) or refunds it, never both, when the cancel races its notifications', async () => {
    const { key, subscription, linkId, session } = await paidBeforeTheCancel();

    const [canceled] = await Promise.all([
      stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, { key: key.api_key }),
      ...Array.from({ length: 6 }, () => notifyPaid(linkId, session)),
    ]);

    expect(canceled?.body).toMatchObject({ status: 'canceled' });
    const after = await stored(subscription.id);
    const kept = after.periods_paid === 2;
    expect((await storedLink(linkId)).refunds).toHaveLength(kept ? 0 : 1);
  });
});

describe('an update link whose session its PSP cannot end when the subscription is canceled', () => {
  it('leaves the cancel answered as always, and the link to the sweeper, which cancels it once it can', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const declined = await runAt(subscription, subscription.current_period_end);
    const linkId = declined?.dunning?.update_link_id as string;
    await navigate(`${stack.checkoutBase}/${linkId}`);
    const { connection } = (await pspConnectionRepository().get(subscription.mandate.connection_id)) as {
      connection: PspConnection;
    };
    await pspConnectionRepository().remove(connection.id);

    const canceled = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: key.api_key,
    });

    expect(canceled).toMatchObject({ status: 200, body: { status: 'canceled', next_charge_at: null } });
    expect((await storedLink(linkId)).status).toBe('open');
    await pspConnectionRepository().create(connection);
    const swept = await runAt(subscription, new Date());
    expect(swept).toMatchObject({ status: 'canceled', due_at: null });
    expect((await storedLink(linkId)).status).toBe('canceled');
  });
});

describe('an update link a payment is collected on when the subscription is canceled', () => {
  it('is left open until that payment settles (its outcome first), then canceled by the sweeper', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const declined = await runAt(subscription, subscription.current_period_end);
    const linkId = declined?.dunning?.update_link_id as string;
    await navigate(`${stack.checkoutBase}/${linkId}`);
    const paymentId = (await storedLink(linkId)).psp_session?.payment_id as string;
    // The buyer's bank debit is under way at the PSP, as the first reader of the session marks it.
    const started = (await paymentRepository().get(linkId, 'test', paymentId)) as Payment;
    await paymentRepository().save(
      { ...started, money_under_way: true, version: started.version + 1 },
      started,
    );

    const canceled = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: key.api_key,
    });

    expect(canceled).toMatchObject({ status: 200, body: { status: 'canceled' } });
    expect((await storedLink(linkId)).status).toBe('open');
    const underWay = (await paymentRepository().get(linkId, 'test', paymentId)) as Payment;
    const { money_under_way: _returned, ...settled } = underWay;
    await paymentRepository().save({ ...settled, version: underWay.version + 1 }, underWay);
    expect(await runAt(subscription, new Date())).toMatchObject({ status: 'canceled', due_at: null });
    expect((await storedLink(linkId)).status).toBe('canceled');
  });
});

/** A past-due subscription whose update link the buyer paid at the PSP, before its notification reached us. */
async function paidBeforeTheCancel() {
  const key = await account('renewal_hard_decline');
  const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
  const declined = await runAt(subscription, subscription.current_period_end);
  const linkId = declined?.dunning?.update_link_id as string;
  await navigate(`${stack.checkoutBase}/${linkId}`);
  const session = (await storedLink(linkId)).psp_session as PspSession;
  const unheard = async () => false;
  await paySandboxSession(
    {
      sessions: sandboxSessionStore(),
      mandates: sandboxMandateStore(),
      notify: unheard,
      now: () => new Date(),
    },
    session.id,
  );
  return { key, subscription, linkId, session };
}

/** The sandbox's notification that the update link's session was paid, as it sends it (again). */
function notifyPaid(linkId: string, session: PspSession) {
  const { rawBody, headers } = sandboxNotification({ session_id: session.id, link_id: linkId });
  return stack.request('POST', `/psp/sandbox/notifications/${session.connection_id}`, { rawBody, headers });
}

describe('a renewal whose connection was removed', () => {
  it('whose answer was lost is never recorded declined: its outcome stays unknown for an operator', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;
    const lost = aroundCharge(due, async (send) => {
      await send();
      throw new PspOutageError('The answer was lost on the way back.');
    });
    await expect(runDue(lost, subscription, new Date(due))).rejects.toThrow();
    expect(await chargesOf(subscription)).toHaveLength(1);

    await pspConnectionRepository().remove(subscription.mandate.connection_id);
    const after = await runAt(subscription, days(due, 0.01));

    expect(await renewalsOf(subscription)).toEqual([]);
    expect(after).toMatchObject({ status: 'active', charging: { period: 2, attempt: 1 } });
  });

  it('never sent is declined hard, and the subscription past due with an update link', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    await pspConnectionRepository().remove(subscription.mandate.connection_id);

    const after = await runAt(subscription, subscription.current_period_end);

    expect(after).toMatchObject({
      status: 'past_due',
      charging: null,
      latest_failure: { class: 'hard', code: 'connection_removed' },
    });
    expect(after?.dunning?.update_link_id).toMatch(/^pl_/);
    expect(await chargesOf(subscription)).toEqual([]);
  });
});

describe('a renewal the PSP answered pending, then declined', () => {
  /** A subscription of an account whose renewals the sandbox declines so, its first renewal answered pending. */
  async function renewedPending(simulate: 'renewal_soft_decline' | 'renewal_hard_decline') {
    const key = await account(simulate);
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;
    const underWay = aroundCharge(due, async (send) => ({
      state: 'pending',
      reference: (await send()).reference,
    }));
    return { subscription, due, charged: await runDue(underWay, subscription, new Date(due)) };
  }

  it('counts its retry days from when the charge was due, not from when its outcome was asked', async () => {
    const { subscription, due, charged } = await renewedPending('renewal_soft_decline');
    expect(charged).toMatchObject({ charging: { period: 2 } });

    const declined = await runAt(subscription, days(due, 0.5));

    expect(declined).toMatchObject({
      status: 'past_due',
      dunning: { period: 2, failed_attempts: 1, first_failed_at: due, next: 'retry' },
      due_at: days(due, 1),
    });
  });

  it('after a hard decline, ends the update link when the collection ends', async () => {
    const { subscription, due } = await renewedPending('renewal_hard_decline');

    const declined = await runAt(subscription, days(due, 0.5));

    expect(declined).toMatchObject({ status: 'past_due', due_at: days(due, 7) });
    const update = await storedLink(declined?.dunning?.update_link_id as string);
    expect(update.expires_at).toBe(days(due, 7));
  });

  it('declined after its collection would have ended, cancels the subscription and its update link at once', async () => {
    const { subscription, due } = await renewedPending('renewal_hard_decline');

    const after = await runAt(subscription, days(due, 8));

    expect(after).toMatchObject({ status: 'canceled', cancellation_reason: 'payment_failed', due_at: null });
    const update = await storedLink(after?.dunning?.update_link_id as string);
    expect(update).toMatchObject({ status: 'canceled', expires_at: null });
  });
});
