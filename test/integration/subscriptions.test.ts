import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate } from '../support/navigate.ts';
import {
  chargesOf,
  days,
  MONTHLY,
  renewalsOf,
  runAt,
  simulateAtMandate,
  stored,
  subscriptionWorld,
} from '../support/subscriptions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * Subscriptions through the local stack (docs/subscriptions.md): a subscription link paid at a stored sandbox
 * connection starts a subscription, and the charge sweeper's use case, driven through an injected clock, renews it
 * at the sandbox's simulated mandate. Each test has an account of its own, so that what one makes due is its own.
 * Update links, cancel links and authentication asked are subscription-recovery.test.ts's.
 */

let stack: TestStack;
let receiver: Receiver;
const { account, subscribe, webhooksOf } = subscriptionWorld(() => ({ stack, receiver }), 'subs');

beforeAll(async () => {
  // The tests run the sweeper's steps themselves, at the times they choose: no timer may take that work first.
  stack = await startTestStack({ schedules: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.stop();
});

describe('a subscription link', () => {
  it('starts an active subscription pinned to the connection that holds its mandate, and renews it each period', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });

    expect(subscription).toMatchObject({
      status: 'active',
      current_period: 1,
      periods_paid: 1,
      amount: { value: '10.50', currency: 'EUR' },
      mandate: { provider: 'sandbox' },
    });
    expect(subscription.due_at).toBe(subscription.current_period_end);

    const renewed = await runAt(subscription, subscription.current_period_end);

    expect(renewed).toMatchObject({ status: 'active', current_period: 2, periods_paid: 2 });
    expect(renewed?.current_period_start).toBe(subscription.current_period_end);
    const [renewal] = await renewalsOf(subscription);
    expect(renewal).toMatchObject({ status: 'succeeded', subscription_id: subscription.id });
    const books = await stack.request('GET', '/v1/payments', { key: key.api_key });
    expect(books.body.data.find((payment: { id: string }) => payment.id === renewal?.id)).toMatchObject({
      status: 'succeeded',
      subscription_id: subscription.id,
      amount: { value: '10.50', currency: 'EUR' },
    });
  });

  it('is charged once for a period however many sweeper runs and test clocks race for it', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    await Promise.all([
      ...Array.from({ length: 4 }, () => runAt(subscription, due)),
      ...Array.from({ length: 4 }, () =>
        stack.request('POST', `/v1/test-helpers/subscriptions/${subscription.id}/advance`, {
          key: key.api_key,
        }),
      ),
    ]);

    const after = await stored(subscription.id);
    expect(after.periods_paid).toBe(2);
    expect(await chargesOf(subscription)).toHaveLength(1);
    expect(await renewalsOf(subscription)).toHaveLength(1);
    await eventually(() =>
      webhooksOf(key, subscription.id).some((event) => event.type === 'subscription.renewed'),
    );
    expect(
      webhooksOf(key, subscription.id).filter((event) => event.type === 'subscription.renewed'),
    ).toHaveLength(1);
  });

  it('with a trial, charges nothing when the buyer subscribes and the full amount when the trial ends', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: { ...MONTHLY, trial_days: 14 } });

    expect(subscription).toMatchObject({ status: 'trialing', current_period: 0, periods_paid: 0 });
    expect(subscription.current_period_end).toBe(days(subscription.current_period_start, 14));
    const first = await stack.request('GET', '/v1/payments', { key: key.api_key });
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0].amount).toEqual({ value: '0.00', currency: 'EUR' });
    expect(await chargesOf(subscription)).toHaveLength(0);

    const charged = await runAt(subscription, subscription.current_period_end);

    expect(charged).toMatchObject({ status: 'active', current_period: 1, periods_paid: 1 });
    const [renewal] = await renewalsOf(subscription);
    expect(renewal?.amount).toEqual({ value: '10.50', currency: 'EUR' });
  });
});

describe('what the buyer is told', () => {
  it('on our page and the sandbox page, in their language: the amount, how often, and how to cancel', async () => {
    const key = await account();
    const link = await createLink(stack, key.api_key, { recurring: MONTHLY });
    const expected: Record<string, string> = {
      en: 'every month, until you cancel.',
      nl: 'per maand, tot je opzegt.',
      de: 'monatlich, bis Sie kündigen.',
      fr: 'par mois, jusqu’à votre résiliation.',
      es: 'al mes, hasta que canceles.',
    };

    for (const [language, terms] of Object.entries(expected)) {
      const page = await httpRequest(link.checkout_url, {
        headers: { ...NAVIGATION_HEADERS, 'accept-language': language },
      });
      expect(page.text).toContain(terms);
    }
    // The sandbox's page speaks the language its session was opened in: the first visit's.
    const session = (await storedLink(link.id)).psp_session;
    expect((await navigate(session?.url as string)).text).toContain(expected.en);
    const paid = await subscribe(key.api_key, { recurring: MONTHLY });
    const received = await navigate(`${stack.checkoutBase}/${paid.link_id}/complete`);
    expect(received.text).toContain('Your subscription is set up.');
    expect(received.text).toContain('ask the merchant for a cancel link');
  });
});

describe('cancel', () => {
  it('at the period end charges nothing more and cancels the subscription when the period ends', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });

    const asked = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: key.api_key,
      body: { at_period_end: true },
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: 'active', cancel_at_period_end: true, next_charge_at: null });

    const ended = await runAt(subscription, subscription.current_period_end);

    expect(ended).toMatchObject({ status: 'canceled', canceled_at: subscription.current_period_end });
    expect(await chargesOf(subscription)).toHaveLength(0);
    expect(await runAt(subscription, days(subscription.current_period_end, 40))).toMatchObject({
      status: 'canceled',
    });
    expect(await chargesOf(subscription)).toHaveLength(0);
  });

  it('now cancels at once and sends subscription.canceled', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });

    const canceled = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: key.api_key,
    });

    expect(canceled.body).toMatchObject({ status: 'canceled', cancellation_reason: 'requested' });
    expect(await runAt(subscription, subscription.current_period_end)).toMatchObject({ status: 'canceled' });
    expect(await chargesOf(subscription)).toHaveLength(0);
    await eventually(() =>
      webhooksOf(key, subscription.id).some((event) => event.type === 'subscription.canceled'),
    );
  });
});

describe('a declined renewal', () => {
  it('after a soft decline is retried on the retry days, then left past due when the account says so', async () => {
    const key = await account('renewal_soft_decline');
    const settings = await stack.request('PUT', '/v1/account-settings', {
      key: key.api_key,
      body: { personal_data_retention_days: 400, subscription_after_retries: 'leave_past_due' },
    });
    expect(settings.status).toBe(200);
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    const declined = await runAt(subscription, due);
    expect(declined).toMatchObject({
      status: 'past_due',
      due_at: days(due, 1),
      dunning: { period: 2, failed_attempts: 1, class: 'soft', next: 'retry' },
    });
    for (const day of [1, 3, 5]) await runAt(subscription, days(due, day));
    const lastRetry = await runAt(subscription, days(due, 7));

    expect(await chargesOf(subscription)).toHaveLength(5);
    expect(lastRetry).toMatchObject({ status: 'past_due', due_at: null, dunning: { failed_attempts: 5 } });
    expect(lastRetry?.dunning?.update_link_id).toMatch(/^pl_/);
    expect(await runAt(subscription, days(due, 60))).toMatchObject({ status: 'past_due' });
    expect(await chargesOf(subscription)).toHaveLength(5);
    const read = await stack.request('GET', `/v1/subscriptions/${subscription.id}`, { key: key.api_key });
    expect(read.body.update_url).toMatch(/\/pl_/);
    expect(read.body.latest_failure).toMatchObject({ class: 'soft', code: 'sandbox:insufficient_funds' });
  });

  it('after a hard decline is never retried: past due at once, with an update link, canceled when collection ends', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    const declined = await runAt(subscription, due);

    expect(declined).toMatchObject({ status: 'past_due', dunning: { class: 'hard', next: 'give_up' } });
    expect(declined?.dunning?.update_link_id).toMatch(/^pl_/);
    for (const day of [1, 3, 5]) await runAt(subscription, days(due, day));
    expect(await chargesOf(subscription)).toHaveLength(1);
    const gaveUp = await runAt(subscription, days(due, 7));
    expect(gaveUp).toMatchObject({ status: 'canceled', cancellation_reason: 'payment_failed' });
    expect(await chargesOf(subscription)).toHaveLength(1);
  });
});

describe('webhooks', () => {
  it('tell the merchant of each change, signed as Standard Webhooks with the account-mode secret', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    await runAt(subscription, subscription.current_period_end);
    await runAt(subscription, days(subscription.current_period_end, 7));

    const types = await eventually(() => {
      const received = webhooksOf(key, subscription.id).map((event) => event.type);
      return received.length >= 4 && received;
    });

    expect(types.sort()).toEqual([
      'subscription.canceled',
      'subscription.created',
      'subscription.past_due',
      'subscription.payment_failed',
    ]);
    const failed = webhooksOf(key, subscription.id).find(
      (event) => event.type === 'subscription.payment_failed',
    );
    expect(failed?.data).toMatchObject({
      status: 'past_due',
      latest_failure: { class: 'hard' },
      payment: { status: 'failed', subscription_id: subscription.id, decline: { class: 'hard' } },
    });
    expect(failed?.data.update_url).toMatch(/\/pl_/);
  });
});

describe('the API', () => {
  it('refuses a subscription link with a buyer-chosen amount, and lets PATCH change the next period only', async () => {
    const key = await account();
    const refused = await stack.request('POST', '/v1/payment-links', {
      key: key.api_key,
      body: {
        amount_range: { currency: 'EUR', minimum: '1.00', maximum: '50.00' },
        recurring: MONTHLY,
      },
    });
    expect(refused.status).toBe(422);

    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const patched = await stack.request('PATCH', `/v1/subscriptions/${subscription.id}`, {
      key: key.api_key,
      body: { amount: { value: '12.00', currency: 'EUR' }, metadata: { plan: 'plus' } },
    });
    expect(patched.body).toMatchObject({
      amount: { value: '12.00', currency: 'EUR' },
      metadata: { plan: 'plus' },
    });

    await runAt(subscription, subscription.current_period_end);

    const [renewal] = await renewalsOf(subscription);
    expect(renewal?.amount).toEqual({ value: '12.00', currency: 'EUR' });
  });

  it('answers a test clock 502 psp_unavailable with Retry-After while the PSP cannot be asked, and charges the period once when it can', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const advance = () =>
      stack.request('POST', `/v1/test-helpers/subscriptions/${subscription.id}/advance`, {
        key: key.api_key,
      });

    await simulateAtMandate(subscription, 'fail');
    const refused = await advance();
    expect(refused.status).toBe(502);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body).toMatchObject({ code: 'psp_unavailable' });
    expect(await stored(subscription.id)).toMatchObject({ periods_paid: 1, status: 'active' });

    await simulateAtMandate(subscription, 'ok');
    expect((await advance()).status).toBe(200);
    expect(await stored(subscription.id)).toMatchObject({ periods_paid: 2, status: 'active' });
    expect(await chargesOf(subscription)).toHaveLength(1);
  });

  it('answers 404 to the test clock of a live key', async () => {
    const live = await stack.issueKey('subs-live', 'live');
    const advanced = await stack.request(
      'POST',
      '/v1/test-helpers/subscriptions/sub_000000000000000000000000/advance',
      {
        key: live.api_key,
      },
    );
    expect(advanced.status).toBe(404);
  });
});
