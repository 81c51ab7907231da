import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelLinkStore, eventQueue, subscriptionRepository } from '../../functions/dependencies.ts';
import { cancelLinkPage } from '../../functions/http/checkout/subscription-cancel-views.ts';
import { readCancelLink } from '../../functions/use-cases/subscriptions.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { navigate, postOurForm } from '../support/navigate.ts';
import {
  chargesOf,
  days,
  MONTHLY,
  payOnSandbox,
  runAt,
  stored,
  subscriptionWorld,
} from '../support/subscriptions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * A subscription's way back, and the buyer's way out, through the local stack (docs/subscriptions.md#update-links,
 * #cancel-links, #retries): the update link a decline the buyer must answer leaves, and the cancel link a merchant
 * sends the buyer.
 */

let stack: TestStack;
let receiver: Receiver;
const { account, subscribe, webhooksOf } = subscriptionWorld(() => ({ stack, receiver }), 'subs-recovery');

beforeAll(async () => {
  // The tests run the sweeper's steps themselves, at the times they choose: no timer may take that work first.
  stack = await startTestStack({ schedules: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.stop();
});

describe('an update link', () => {
  it('paid after a hard decline pays the period, pins the new mandate and makes the subscription active again', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const declined = await runAt(subscription, subscription.current_period_end);
    const read = await stack.request('GET', `/v1/subscriptions/${subscription.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({ status: 'past_due', update_url: expect.stringMatching(/\/pl_/) });
    const update = { id: declined?.dunning?.update_link_id as string, checkout_url: read.body.update_url };

    await payOnSandbox(stack, update);

    const recovered = await eventually(async () => {
      const now = await stored(subscription.id);
      return now.status === 'active' && now;
    });
    expect(recovered).toMatchObject({ current_period: 2, periods_paid: 2, dunning: null });
    expect(recovered.mandate.reference).not.toBe(subscription.mandate.reference);
    // Paid before the period's scheduled start: the period keeps its place.
    expect(recovered.current_period_start).toBe(subscription.current_period_end);
    const again = await stack.request('GET', `/v1/subscriptions/${subscription.id}`, { key: key.api_key });
    expect(again.body.update_url).toBeNull();
    await eventually(() =>
      webhooksOf(key, subscription.id).some((event) => event.type === 'subscription.renewed'),
    );
  });

  it('tells the buyer on the PSP’s page that the method paying now pays the later periods too', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    await runAt(subscription, subscription.current_period_end);
    const read = await stack.request('GET', `/v1/subscriptions/${subscription.id}`, { key: key.api_key });

    await navigate(read.body.update_url);
    const session = (await storedLink(read.body.update_url.split('/').at(-1))).psp_session;
    const sandbox = await navigate(session?.url as string);

    expect(sandbox.text).toContain('This payment method will also be charged for the subscription');
  });
});

describe('a renewal the issuer wants the buyer present for', () => {
  it('is never retried: past due at once with an update link, canceled when the collection ends', async () => {
    const key = await account('renewal_authentication');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    const declined = await runAt(subscription, due);

    expect(declined).toMatchObject({
      status: 'past_due',
      dunning: { class: 'authentication_required', next: 'give_up', failed_attempts: 1 },
    });
    expect(declined?.dunning?.update_link_id).toMatch(/^pl_/);
    const read = await stack.request('GET', `/v1/subscriptions/${subscription.id}`, { key: key.api_key });
    expect(read.body.latest_failure).toMatchObject({
      class: 'authentication_required',
      code: 'sandbox:authentication_required',
    });
    for (const day of [1, 3, 5]) await runAt(subscription, days(due, day));
    expect(await chargesOf(subscription)).toHaveLength(1);
    expect(await runAt(subscription, days(due, 7))).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'payment_failed',
    });
    expect(await chargesOf(subscription)).toHaveLength(1);
  });
});

describe('a cancel link', () => {
  /** The merchant asks for a cancel link to send the buyer: its address. */
  async function cancelLinkOf(key: string, id: string): Promise<string> {
    const made = await stack.request('POST', `/v1/subscriptions/${id}/cancel-link`, { key });
    expect(made.status).toBe(201);
    return made.body.url;
  }

  it('shows the buyer what is charged and when, and cancels at the end of the period paid, once', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const url = await cancelLinkOf(key.api_key, subscription.id);

    const page = await navigate(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('€10.50 every month, until you cancel.');
    expect(page.text).toContain('Next charge:');
    const canceled = await postOurForm(url, '');

    expect(canceled.status).toBe(200);
    expect(canceled.text).toContain(
      'Your subscription is canceled. Nothing more will be charged; it ends on',
    );
    expect(canceled.text).not.toContain('This cancel link was used already.');
    expect(await stored(subscription.id)).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect((await postOurForm(url, '')).text).toContain('This cancel link was used already.');
    expect((await navigate(url)).text).toContain('This cancel link was used already.');
    const ended = await runAt(subscription, subscription.current_period_end);
    expect(ended).toMatchObject({ status: 'canceled', cancellation_reason: 'buyer' });
    expect(await chargesOf(subscription)).toHaveLength(0);
  });

  it('cancels a past-due subscription at once, as its period is unpaid, and its update link', async () => {
    const key = await account('renewal_hard_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const declined = await runAt(subscription, subscription.current_period_end);
    const url = await cancelLinkOf(key.api_key, subscription.id);

    const canceled = await postOurForm(url, '');

    expect(canceled.text).toContain('Your subscription is canceled. Nothing more will be charged.');
    expect(await stored(subscription.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'buyer' });
    expect((await storedLink(declined?.dunning?.update_link_id as string)).status).toBe('canceled');
  });

  it('is refused past its 30 days (410) and at an address it never had (404), in the buyer’s language', async () => {
    const key = await account();
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const token = (await cancelLinkOf(key.api_key, subscription.id)).split('/').at(-1) as string;
    const deps = {
      subscriptions: subscriptionRepository(),
      cancelLinks: cancelLinkStore(),
      queue: eventQueue(),
      checkoutBase: stack.checkoutBase,
    };

    const later = await readCancelLink({ ...deps, now: () => new Date(Date.now() + 31 * 86_400_000) }, token);
    const expired = await cancelLinkPage(later, { https: false, locale: 'de', token });
    const unknown = await navigate(`${stack.baseUrl}/subscriptions/cancel/${'x'.repeat(32)}`);

    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('Dieser Kündigungslink ist abgelaufen.');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('There is no cancel link at this address.');
    expect((await navigate(`${stack.baseUrl}/subscriptions/cancel/${token}`)).status).toBe(200);
  });
});
