import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_IDEMPOTENCY_WINDOW_MS } from '../../functions/adapters/psp/adyen/adapter.ts';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { type FakeMollie, MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { type FakeStripe, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { refundLedger } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { sweepPendingRefunds } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

/**
 * Refunds whose outcome the PSP decides after answering the request (docs/webhooks.md#refunds): the PSP's
 * notification settles them, or the refund sweeper when the notification never comes; a refund the PSP never
 * acknowledged is asked for again. Each PSP through its official SDK against a server speaking its wire format.
 */
const stripeCredentials = STRIPE_FAKE.credentials;
const adyenCredentials = ADYEN_FAKE.credentials;

let psps: PspStack<typeof FAKES>;
let stripe: FakeStripe;
let mollie: FakeMollie;
let adyen: FakeAdyen;
let stack: TestStack;
const keys: Record<'stripe' | 'mollie' | 'adyen' | 'other', IssuedApiKey> = {} as never;
const connections: Record<'stripe' | 'mollie' | 'adyen', PspConnection> = {} as never;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, stripe, mollie, adyen } = psps);
  for (const provider of ['stripe', 'mollie', 'adyen'] as const) {
    keys[provider] = await stack.issueKey(`${provider}refunds`, 'test');
    connections[provider] = await psps.connect(`${provider}refunds`, provider);
  }
  keys.other = await stack.issueKey('otherrefunds', 'test');
});
afterAll(() => psps?.stop());

const notify = (provider: 'stripe' | 'mollie' | 'adyen', rawBody: string, headers: Record<string, string>) =>
  stack.request('POST', `/psp/${provider}/notifications/${connections[provider].id}`, { rawBody, headers });

const notifyStripe = (event: { body: string; signature: string }) =>
  notify('stripe', event.body, { 'content-type': 'application/json', 'stripe-signature': event.signature });
const notifyMollie = (paymentId: string) =>
  notify('mollie', mollie.webhookBody(paymentId), { 'content-type': 'application/x-www-form-urlencoded' });
const notifyAdyen = (item: Parameters<FakeAdyen['notification']>[0][number]) =>
  notify('adyen', adyen.notification([item], { hmacKey: adyenCredentials.hmac_key }), {
    'content-type': 'application/json',
  });

/** A link of the provider's account, paid at that PSP and recorded through its notification. */
async function paidLink(provider: 'stripe' | 'mollie' | 'adyen', value = '20.00') {
  const link = await createLink(stack, keys[provider].api_key, { amount: { value, currency: 'EUR' } });
  const page = await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error(`The checkout opened no session: ${page.status} ${page.text}`);
  if (provider === 'stripe') {
    const paid = stripe.completeSession(session.id);
    await notifyStripe(
      stripe.signedEvent('checkout.session.completed', paid, stripeCredentials.webhook_secret),
    );
  } else if (provider === 'mollie') {
    mollie.setStatus(session.id, 'paid');
    await notifyMollie(session.id);
  } else {
    await notifyAdyen(adyen.pay(session.id));
  }
  expect((await storedLink(link.id)).status).toBe('paid');
  return link;
}

const requestRefund = (provider: keyof typeof keys, linkId: string, value: string) =>
  stack.request('POST', `/v1/payment-links/${linkId}/refunds`, {
    key: keys[provider].api_key,
    body: { amount: { value, currency: 'EUR' } },
  });

const refundsOf = async (provider: keyof typeof keys, linkId: string) =>
  (await stack.request('GET', `/v1/payment-links/${linkId}/refunds`, { key: keys[provider].api_key })).body
    .data;

const eventTypes = async (provider: keyof typeof keys, linkId: string) =>
  (
    await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: keys[provider].api_key })
  ).body.data.map((event: { type: string }) => event.type);

const sweep = sweepPendingRefunds;

describe('a refund the PSP settles later, told by its notification', () => {
  it('Stripe: refund.updated settles it with refund.succeeded, and amount_refunded follows', async () => {
    const link = await paidLink('stripe');
    const created = await requestRefund('stripe', link.id, '5.00');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^re_/),
    });

    const settled = stripe.settleRefund(created.body.provider_reference, 'succeeded');
    const response = await notifyStripe(
      stripe.signedEvent('refund.updated', settled, stripeCredentials.webhook_secret),
    );

    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('refunded');
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.stripe.api_key });
    expect(read.body.amount_refunded).toEqual({ value: '5.00', currency: 'EUR' });
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);

    // Stripe sends its events more than once: the copy records nothing new.
    const again = await notifyStripe(
      stripe.signedEvent('refund.updated', settled, stripeCredentials.webhook_secret),
    );
    expect(again.status).toBe(200);
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);
  });

  it('Stripe: a failed refund frees its amount, so it can be refunded again', async () => {
    const link = await paidLink('stripe', '8.00');
    const created = await requestRefund('stripe', link.id, '8.00');
    const failed = stripe.settleRefund(created.body.provider_reference, 'failed');

    const response = await notifyStripe(
      stripe.signedEvent('refund.failed', failed, stripeCredentials.webhook_secret),
    );

    expect(response.body.outcome).toBe('refund_failed');
    expect(await refundsOf('stripe', link.id)).toMatchObject([
      { id: created.body.id, status: 'failed', failure: { code: 'refund_failed' } },
    ]);
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
    expect((await requestRefund('stripe', link.id, '8.00')).status).toBe(201);
  });

  it('Stripe: a refund made in its dashboard, or naming another tenant’s link, is ignored (200) and changes nothing', async () => {
    const link = await paidLink('stripe', '6.00');
    const created = await requestRefund('stripe', link.id, '1.00');
    const ours = stripe.refunds.get(created.body.provider_reference)!;

    const fromDashboard = { ...ours, id: `re_${'d'.repeat(24)}`, metadata: {} };
    stripe.refunds.set(fromDashboard.id, fromDashboard);
    const ignored = await notifyStripe(
      stripe.signedEvent('refund.updated', fromDashboard, stripeCredentials.webhook_secret),
    );
    expect(ignored.status).toBe(200);
    expect(ignored.body.outcome).toBe('ignored');

    const otherLink = await createLink(stack, keys.other.api_key);
    const foreign = {
      ...ours,
      id: `re_${'f'.repeat(24)}`,
      status: 'succeeded',
      metadata: { link_id: otherLink.id, refund_id: created.body.id },
    };
    stripe.refunds.set(foreign.id, foreign);
    const refused = await notifyStripe(
      stripe.signedEvent('refund.updated', foreign, stripeCredentials.webhook_secret),
    );
    expect(
      (await stack.request('GET', `/v1/payment-links/${otherLink.id}/refunds`, { key: keys.other.api_key }))
        .body.data,
    ).toEqual([]);
    expect(refused.status).toBe(200);
    expect(refused.body.outcome).toBe('ignored');
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ id: created.body.id, status: 'pending' }]);
  });

  it('Mollie: the payment’s webhook, which Mollie calls when a refund changes, settles the refund', async () => {
    const link = await paidLink('mollie');
    const created = await requestRefund('mollie', link.id, '20.00');
    expect(created.body).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^tr_/),
    });
    const [paymentId, mollieRefundId] = created.body.provider_reference.split('/');

    mollie.setRefundStatus(mollieRefundId, 'refunded');
    const response = await notifyMollie(paymentId);

    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('refunded');
    expect(await refundsOf('mollie', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    expect(await eventTypes('mollie', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);
  });

  it('Adyen: the REFUND notification settles it, a REFUND_FAILED fails it', async () => {
    const link = await paidLink('adyen');
    const first = await requestRefund('adyen', link.id, '5.00');
    const second = await requestRefund('adyen', link.id, '7.00');
    expect([first.body.status, second.body.status]).toEqual(['pending', 'pending']);

    const succeeded = await notifyAdyen(adyen.refundItem(first.body.provider_reference, 'succeeded'));
    const failed = await notifyAdyen(adyen.refundItem(second.body.provider_reference, 'failed'));

    expect([succeeded.status, failed.status]).toEqual([200, 200]);
    expect(await refundsOf('adyen', link.id)).toMatchObject([
      { id: second.body.id, status: 'failed' },
      { id: first.body.id, status: 'succeeded' },
    ]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.adyen.api_key });
    expect(read.body.amount_refunded).toEqual({ value: '5.00', currency: 'EUR' });
    expect(await eventTypes('adyen', link.id)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
      'refund.failed',
    ]);
  });
});

describe('a refund the PSP refuses outright', () => {
  it('Stripe: a payment already refunded in its dashboard fails the refund at once, with refund.failed, and frees its amount', async () => {
    const link = await paidLink('stripe', '7.00');
    stripe.refundInDashboard((await storedLink(link.id)).payment!.reference!);

    const created = await requestRefund('stripe', link.id, '7.00');

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'failed',
      provider_reference: null,
      failure: { code: 'refund_failed', message: expect.stringMatching(/^Stripe: .*already been refunded/) },
    });
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
    const stored = await storedLink(link.id);
    expect(stored.refund_reserved_minor).toBe(0);
    expect(stored.refund_check_at).not.toBeNull(); // the sweeper takes it off its list at its next look
  });

  it('Mollie: a refund Mollie refuses (more than remains there) fails at once and frees its amount', async () => {
    const link = await paidLink('mollie', '12.00');
    const payment = mollie.payments.get((await storedLink(link.id)).payment!.reference!)!;
    payment.amountRefunded = { value: '12.00', currency: 'EUR' }; // refunded in Mollie's dashboard

    const created = await requestRefund('mollie', link.id, '12.00');

    expect(created.body).toMatchObject({ status: 'failed', failure: { code: 'refund_failed' } });
    expect(await eventTypes('mollie', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
    expect((await storedLink(link.id)).refund_reserved_minor).toBe(0);
  });

  it('the sweeper fails a refund that the PSP, asked again, refuses, instead of leaving it pending', async () => {
    const link = await paidLink('mollie', '9.00');
    // Mollie never answers the request (a hang, not a 503: Mollie's SDK retries a 503 twice, 2 s apart, and a
    // retry that outlives the call's 5 s budget could still reach Mollie after the outage and create the refund).
    mollie.outage = 'hang';
    const created = await requestRefund('mollie', link.id, '9.00');
    mollie.outage = 'none';
    expect(created.body).toMatchObject({ status: 'pending', provider_reference: null });
    const payment = mollie.payments.get((await storedLink(link.id)).payment!.reference!)!;
    payment.amountRefunded = { value: '9.00', currency: 'EUR' }; // meanwhile refunded in Mollie's dashboard

    await sweep(new Date(Date.parse(created.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000));

    expect(await refundsOf('mollie', link.id)).toMatchObject([{ id: created.body.id, status: 'failed' }]);
    expect(await eventTypes('mollie', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
  });

  it('Stripe: an amount Stripe cannot express in a three-decimal currency is a 422, before Stripe is asked', async () => {
    const link = await createLink(stack, keys.stripe.api_key, {
      amount: { value: '10.000', currency: 'KWD' },
    });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const paid = stripe.completeSession(session.id);
    await notifyStripe(
      stripe.signedEvent('checkout.session.completed', paid, stripeCredentials.webhook_secret),
    );
    const sent = stripe.requests.length;

    const refused = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: keys.stripe.api_key,
      body: { amount: { value: '1.005', currency: 'KWD' } },
    });

    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { pointer: '/amount/value', detail: expect.stringMatching(/third decimal must be 0/) },
    ]);
    expect(stripe.requests.length).toBe(sent);
    const accepted = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: keys.stripe.api_key,
      body: { amount: { value: '1.01', currency: 'KWD' } },
    });
    expect(accepted.body).toMatchObject({ status: 'pending', amount: { value: '1.01', currency: 'KWD' } });
    expect(stripe.requests.at(-1)?.form.amount).toBe('1010');
  });
});

describe('a refund the PSP reverses after it succeeded', () => {
  it('Stripe: refund.failed after refund.updated (succeeded) fails it again, restores amount_refunded, sends refund.failed', async () => {
    const link = await paidLink('stripe', '10.00');
    const created = await requestRefund('stripe', link.id, '10.00');
    const succeeded = stripe.settleRefund(created.body.provider_reference, 'succeeded');
    await notifyStripe(stripe.signedEvent('refund.updated', succeeded, stripeCredentials.webhook_secret));
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ status: 'succeeded' }]);

    const reversed = stripe.settleRefund(created.body.provider_reference, 'failed');
    const response = await notifyStripe(
      stripe.signedEvent('refund.failed', reversed, stripeCredentials.webhook_secret),
    );

    expect(response.body.outcome).toBe('refund_failed');
    expect(await refundsOf('stripe', link.id)).toMatchObject([
      { id: created.body.id, status: 'failed', failure: { code: 'refund_failed' } },
    ]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.stripe.api_key });
    expect(read.body.amount_refunded).toEqual({ value: '0.00', currency: 'EUR' });
    expect(await eventTypes('stripe', link.id)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
      'refund.failed',
    ]);
    // A copy of the event changes nothing; the amount may be refunded again.
    await notifyStripe(stripe.signedEvent('refund.failed', reversed, stripeCredentials.webhook_secret));
    expect(await eventTypes('stripe', link.id)).toHaveLength(3);
    expect((await requestRefund('stripe', link.id, '10.00')).status).toBe(201);
  });

  it('Adyen: REFUND_FAILED or REFUNDED_REVERSED after REFUND fails the refund again and restores the totals', async () => {
    const link = await paidLink('adyen', '10.00');
    const first = await requestRefund('adyen', link.id, '4.00');
    const second = await requestRefund('adyen', link.id, '6.00');
    await notifyAdyen(adyen.refundItem(first.body.provider_reference, 'succeeded'));
    await notifyAdyen(adyen.refundItem(second.body.provider_reference, 'succeeded'));

    await notifyAdyen(adyen.refundItem(first.body.provider_reference, 'failed'));
    await notifyAdyen(adyen.refundItem(second.body.provider_reference, 'reversed'));

    expect(await refundsOf('adyen', link.id)).toMatchObject([
      { id: second.body.id, status: 'failed', failure: { message: expect.stringMatching(/reversed/) } },
      { id: first.body.id, status: 'failed' },
    ]);
    const stored = await storedLink(link.id);
    expect([stored.refund_refunded_minor, stored.refund_reserved_minor]).toEqual([0, 0]);
    expect(await eventTypes('adyen', link.id)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
      'refund.succeeded',
      'refund.failed',
      'refund.failed',
    ]);
  });
});

describe('verified notifications about what we did not create', () => {
  it('Stripe: a completed session made outside our checkout is answered 200 and ignored, so Stripe stops sending it', async () => {
    const otherTenant = await createLink(stack, keys.other.api_key);
    const created = Math.floor(Date.now() / 1000);
    const outside = (id: string, clientReferenceId: string | null) => {
      const session = {
        id,
        object: 'checkout.session',
        client_reference_id: clientReferenceId,
        created,
        expires_at: created + 3600,
        livemode: false,
        metadata: {},
        mode: 'payment',
        payment_intent: `pi_${id.slice(-12)}`,
        payment_status: 'paid',
        status: 'complete',
        url: null,
      };
      stripe.sessions.set(id, session);
      return session;
    };

    const answers = await Promise.all([
      notifyStripe(
        stripe.signedEvent(
          'checkout.session.completed',
          outside(`cs_test_${'a'.repeat(24)}`, null),
          stripeCredentials.webhook_secret,
        ),
      ),
      notifyStripe(
        stripe.signedEvent(
          'checkout.session.completed',
          outside(`cs_test_${'b'.repeat(24)}`, otherTenant.id),
          stripeCredentials.webhook_secret,
        ),
      ),
    ]);

    expect(answers.map(({ status, body }) => [status, body.outcome])).toEqual([
      [200, 'ignored'],
      [200, 'ignored'],
    ]);
    expect((await storedLink(otherTenant.id)).status).toBe('open');
  });
});

describe('the refund sweeper', () => {
  it('settles a refund whose notification was lost, once its check is due', async () => {
    const link = await paidLink('stripe', '9.00');
    const created = await requestRefund('stripe', link.id, '9.00');
    stripe.settleRefund(created.body.provider_reference, 'succeeded'); // its event never arrives
    const requestedAt = Date.parse(created.body.created_at);

    await sweep(new Date(requestedAt + FIRST_CHECK_AFTER_MS - 60_000));
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ status: 'pending' }]);

    await sweep(new Date(requestedAt + FIRST_CHECK_AFTER_MS + 1_000));
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);
    // Nothing pending: the link has left the sweeper's list.
    expect((await storedLink(link.id)).refund_check_at).toBeNull();
    const due = await refundLedger().dueForCheck(new Date(requestedAt + 30 * 86_400_000), 1_000);
    expect(due.map(({ id }) => id)).not.toContain(link.id);
  });

  it('asks again later each time while the PSP says pending', async () => {
    const link = await paidLink('stripe', '4.00');
    const created = await requestRefund('stripe', link.id, '4.00');
    const firstCheck = Date.parse(created.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000;

    await sweep(new Date(firstCheck));
    const once = await storedLink(link.id);
    await sweep(new Date(Date.parse(once.refund_check_at as string) + 1_000));
    const twice = await storedLink(link.id);

    expect(once.refund_checks).toBe(1);
    expect(twice.refund_checks).toBe(2);
    const firstWait = Date.parse(once.refund_check_at as string) - firstCheck;
    const secondWait =
      Date.parse(twice.refund_check_at as string) - (Date.parse(once.refund_check_at as string) + 1_000);
    expect(secondWait).toBeGreaterThan(firstWait);
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ status: 'pending' }]);
  });

  it('asks a PSP that could not be reached again with the same idempotency key, then its notification settles it', async () => {
    const link = await paidLink('adyen', '15.00');
    adyen.outage = 'error';
    const created = await requestRefund('adyen', link.id, '15.00');
    adyen.outage = 'none';
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', provider_reference: null });
    const atAdyen = () =>
      [...adyen.refunds.values()].filter(({ reference }) => reference.endsWith(created.body.id));
    expect(atAdyen()).toEqual([]);

    await sweep(new Date(Date.parse(created.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000));

    const asked = adyen.requests.filter((request) => request.path.endsWith('/refunds')).at(-1);
    expect(asked?.headers['idempotency-key']).toBe(created.body.id);
    const [pending] = await refundsOf('adyen', link.id);
    expect(pending).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^[0-9A-F]{16}$/),
    });
    expect(atAdyen()).toHaveLength(1);
    await notifyAdyen(adyen.refundItem(pending.provider_reference, 'succeeded'));
    expect(await refundsOf('adyen', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
  });

  it('does not ask again once the PSP’s idempotency window is over: the refund stays pending', async () => {
    const link = await paidLink('adyen', '3.00');
    adyen.outage = 'error';
    const created = await requestRefund('adyen', link.id, '3.00');
    adyen.outage = 'none';
    const refundRequests = () => adyen.requests.filter((request) => request.path.endsWith('/refunds')).length;
    const before = refundRequests();

    await sweep(new Date(Date.parse(created.body.created_at) + ADYEN_IDEMPOTENCY_WINDOW_MS + 60_000));

    expect(refundRequests()).toBe(before);
    expect(await refundsOf('adyen', link.id)).toMatchObject([
      { status: 'pending', provider_reference: null },
    ]);
  });
});
