import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { addConnection } from '../../../../../test/support/connections.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import { sweepPendingPayments, sweepPendingRefunds } from '../../../../../test/support/sweepers.ts';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import { config } from '../../../../config.ts';
import { paymentRepository } from '../../../../dependencies.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import { FIRST_CHECK_AFTER_MS } from '../../../../domain/payment.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { CHECKOUT_FAKE, type FakeCheckout } from './fake.ts';

const FAKES = { checkout: CHECKOUT_FAKE };

/**
 * Checkout.com end to end through the handlers, the SDK against its fake: a payment link authorizes, and we
 * capture only while our link can still be paid by that attempt, else void (docs/orchestration.md#deferred-capture);
 * the missed-notification sweeper captures too; refunds and their outcomes; failover to another PSP.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let fake: FakeCheckout;
let key: IssuedApiKey;
let connection: PspConnection;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, checkout: fake } = psps);
  key = await stack.issueKey('ckoshop', 'test');
  connection = await psps.connect('ckoshop', 'checkout');
});
afterAll(() => psps?.stop());

const notificationUrl = () => `${stack.baseUrl}/psp/checkout_com/notifications/${connection.id}`;
const read = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: key.api_key })).body;
const eventTypes = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}/events`, { key: key.api_key })).body.data.map(
    (event: { type: string }) => event.type,
  );

/** A link whose buyer is at Checkout.com's page: its session. */
async function openedLink(options: Record<string, unknown> = {}) {
  const link = await createLink(stack, key.api_key, options);
  const page = await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session!;
  return { link, page, session };
}

const sweep = sweepPendingPayments;

describe('a payment through Checkout.com', () => {
  it('captures the authorization on its payment_approved notification and pays the link', async () => {
    const { link, page, session } = await openedLink({ redirect_url: 'https://shop.example/thanks' });
    expect(session).toMatchObject({ provider: 'checkout_com', connection_id: connection.id });
    expect(page.headers['content-security-policy']).toContain(`form-action ${new URL(fake.url).origin}`);
    // A Checkout.com buyer comes back to us first, so that the capture happens before the merchant's page.
    expect(fake.links.get(session.id)?.return_url).toBe(
      `${config().CHECKOUT_BASE}/${link.id}/complete?payment=${session.payment_id}`,
    );
    fake.webhookUrl = notificationUrl();
    try {
      const payment = await fake.pay(session.id);
      expect(payment.status).toBe('Captured');
    } finally {
      fake.webhookUrl = undefined;
    }
    expect(await read(link.id)).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'checkout_com' },
    });
    expect(await eventTypes(link.id)).toEqual(['payment_link.paid']);
  });

  it('serves a connection stored as `checkout` before the rename as `checkout_com`, at its old address too', async () => {
    const account = 'ckoformer';
    const formerKey = await stack.issueKey(account, 'test');
    const former = await addConnection({
      account,
      mode: 'test',
      provider: 'checkout',
      name: 'Checkout.com',
      credentials: { ...CHECKOUT_FAKE.credentials },
    });
    const listed = await stack.request('GET', '/v1/psp-connections', { key: formerKey.api_key });
    expect(listed.body.data).toMatchObject([{ id: former.id, provider: 'checkout_com' }]);
    const link = await createLink(stack, formerKey.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    expect(session).toMatchObject({ provider: 'checkout_com', connection_id: former.id });
    // Its webhook at Checkout.com still calls the address it was configured with.
    fake.webhookUrl = `${stack.baseUrl}/psp/checkout/notifications/${former.id}`;
    try {
      expect((await fake.pay(session.id)).status).toBe('Captured');
    } finally {
      fake.webhookUrl = undefined;
    }
    expect(
      await stack.request('GET', `/v1/payment-links/${link.id}`, { key: formerKey.api_key }),
    ).toMatchObject({
      body: { status: 'paid', payment: { provider: 'checkout_com' } },
    });
  });

  it('refuses (400) a notification whose Cko-Signature does not verify, reading nothing at Checkout.com', async () => {
    const before = fake.requests.length;
    const response = await stack.request('POST', `/psp/checkout_com/notifications/${connection.id}`, {
      rawBody: JSON.stringify({ id: 'evt_forged', type: 'payment_approved', data: { id: 'pay_forged' } }),
      headers: { 'content-type': 'application/json', 'cko-signature': 'ab'.repeat(32) },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_notification');
    expect(fake.requests.length).toBe(before);
  });

  it('voids, never captures, an authorization made after the link was canceled', async () => {
    const { link, session } = await openedLink();
    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    // Checkout.com's link cannot be ended: the buyer still pays on it.
    fake.webhookUrl = notificationUrl();
    try {
      const payment = await fake.pay(session.id);
      expect(payment.status).toBe('Voided');
      expect(payment.actions.map((action) => action.type)).not.toContain('Capture');
    } finally {
      fake.webhookUrl = undefined;
    }
    expect(await read(link.id)).toMatchObject({ status: 'canceled' });
    expect(await paymentRepository().get(link.id, 'test', session.payment_id)).toMatchObject({
      status: 'canceled',
      capture: 'released',
    });
  });

  it('captures on the buyer’s return when the notification has not come yet', async () => {
    const { link, session } = await openedLink();
    await fake.pay(session.id);
    const back = await navigate(`${link.checkout_url}/complete?payment=${session.payment_id}`);
    expect(back.status).toBe(200);
    expect(fake.payments.get(fake.links.get(session.id)?.payment_id as string)?.status).toBe('Captured');
    expect((await read(link.id)).status).toBe('paid');
  });

  it('is captured by the missed-notification sweeper when no notification ever comes', async () => {
    const { link, session } = await openedLink();
    await fake.pay(session.id);
    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    expect((await read(link.id)).status).toBe('paid');
    expect(fake.payments.get(fake.links.get(session.id)?.payment_id as string)?.status).toBe('Captured');
  });
});

describe('refunds through Checkout.com', () => {
  const paidLink = async (value: string) => {
    const { link, session } = await openedLink({ amount: { value, currency: 'EUR' } });
    await fake.pay(session.id);
    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    expect((await read(link.id)).status).toBe('paid');
    return link;
  };
  const requestRefund = (linkId: string, value: string) =>
    stack.request('POST', `/v1/payment-links/${linkId}/refunds`, {
      key: key.api_key,
      body: { amount: { value, currency: 'EUR' } },
    });
  const settle = async (reference: string, approved: boolean) => {
    const [paymentId, actionId] = reference.split('/') as [string, string];
    const { body, headers } = fake.signed(await fake.settleRefund(paymentId, actionId, approved));
    return stack.request('POST', `/psp/checkout_com/notifications/${connection.id}`, {
      rawBody: body,
      headers,
    });
  };

  it('succeed on payment_refunded, and fail on payment_refund_declined, which frees the amount', async () => {
    const link = await paidLink('20.00');
    const first = await requestRefund(link.id, '5.00');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^pay_\w+\/act_/),
    });
    expect((await settle(first.body.provider_reference, true)).body.outcome).toBe('refunded');

    const second = await requestRefund(link.id, '15.00');
    await settle(second.body.provider_reference, false);
    const refunds = (await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: key.api_key }))
      .body.data;
    expect(refunds.map((refund: { status: string }) => refund.status).sort()).toEqual([
      'failed',
      'succeeded',
    ]);
    expect((await read(link.id)).amount_refunded).toEqual({ value: '5.00', currency: 'EUR' });
    expect(await eventTypes(link.id)).toEqual(['payment_link.paid', 'refund.succeeded', 'refund.failed']);
  });

  it('are read back by the refund sweeper when no notification comes', async () => {
    const link = await paidLink('9.00');
    const created = await requestRefund(link.id, '9.00');
    const [paymentId, actionId] = created.body.provider_reference.split('/');
    await fake.settleRefund(paymentId, actionId, true);
    await sweepPendingRefunds(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    const refunds = (await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: key.api_key }))
      .body.data;
    expect(refunds).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
  });
});

describe('failover from Checkout.com', () => {
  it('opens the session at the next connection when Checkout.com fails', async () => {
    const account = 'ckofailover';
    const failoverKey = await stack.issueKey(account, 'test');
    const first = await psps.connect(account, 'checkout');
    const second = await addConnection({
      account,
      mode: 'test',
      provider: 'sandbox',
      name: 'S',
      simulate: 'ok',
    });
    fake.outage = 'error';
    try {
      const link = await createLink(stack, failoverKey.api_key);
      await navigate(link.checkout_url);
      expect((await storedLink(link.id)).psp_session).toMatchObject({
        connection_id: second.id,
        provider: 'sandbox',
      });
      const payments = (
        await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: failoverKey.api_key })
      ).body.data;
      expect(
        payments.map((payment: { connection_id: string; status: string }) => [
          payment.connection_id,
          payment.status,
        ]),
      ).toEqual([
        [second.id, 'pending'],
        [first.id, 'failed'],
      ]);
    } finally {
      fake.outage = 'none';
    }
  });
});
