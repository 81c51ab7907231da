import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import { sweepPendingPayments } from '../../../../../test/support/sweepers.ts';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import { eventually, type Receiver, startReceiver } from '../../../../../test/support/webhooks.ts';
import { pspConnectionRepository } from '../../../../dependencies.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import { FIRST_CHECK_AFTER_MS } from '../../../../domain/payment.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { type FakeSquare, SQUARE_FAKE } from './fake.ts';

const FAKES = { square: SQUARE_FAKE };

/**
 * Square end to end through the handlers, its SDK against its fake: the buyer sent to the payment link, Square's
 * signed notification paying the link and the merchant's signed webhook, forged and foreign notifications
 * refused, a success at another amount never paying it, the link deleted when ours ends early, a partial refund.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let fake: FakeSquare;
let key: IssuedApiKey;
let connection: PspConnection;
let receiver: Receiver;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  ({ stack, square: fake } = psps);
  receiver = await startReceiver();
  key = await stack.issueKey('squareshop', 'test');
  connection = await psps.connect('squareshop', 'square');
  fake.notificationUrl = `${stack.baseUrl}/psp/square/notifications/${connection.id}`;
});
afterAll(async () => {
  await psps?.stop();
  await receiver?.close();
});

const read = async (id: string, path = '') =>
  (await stack.request('GET', `/v1/payment-links/${id}${path}`, { key: key.api_key })).body;

/** A link whose buyer is at Square's payment link: its session. */
async function openedLink(options: Record<string, unknown> = {}) {
  const link = await createLink(stack, key.api_key, options);
  const page = await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session!;
  return { link, page, session };
}

const notify = (body: string, signature: string) =>
  stack.request('POST', `/psp/square/notifications/${connection.id}`, {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': signature },
  });

describe('a payment through Square', () => {
  it('sends the buyer to the payment link, and its signed notification pays the link and signs the webhook', async () => {
    const { link, page, session } = await openedLink({
      redirect_url: 'https://shop.example/thanks',
      webhook_url: receiver.url,
    });
    expect(session).toMatchObject({ provider: 'square', connection_id: connection.id });
    const [linkId, orderId] = session.id.split(':');
    const squareLink = fake.links.get(linkId as string);
    expect(squareLink).toMatchObject({
      order_id: orderId,
      checkout_options: { redirect_url: 'https://shop.example/thanks' },
    });
    expect(page.text).toContain(squareLink?.url);
    expect(page.headers['content-security-policy']).toContain(`form-action ${new URL(fake.url).origin}`);
    expect(fake.orders.get(orderId as string)).toMatchObject({
      reference_id: session.payment_id,
      metadata: { link_id: link.id, payment_id: session.payment_id },
      total_money: { amount: 1050, currency: 'EUR' },
    });

    const paid = await fake.pay(session.id);

    expect(await read(link.id)).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'square', reference: paid.id },
    });
    const hook = await eventually(async () =>
      receiver.received.find((received) => received.body.includes(link.id)),
    );
    const payload = new Webhook(key.webhook_secret).verify(hook.body, hook.headers as Record<string, string>);
    expect(payload).toMatchObject({ type: 'payment_link.paid', data: { id: link.id, status: 'paid' } });
    expect(fake.violations).toEqual([]);
  });

  it("records Square's processing fee as reported, and the configured estimate before Square lists one", async () => {
    await pspConnectionRepository().setFees(connection.id, [{ percent: 2, fixed: 0 }]);
    const paidWith = async (fees?: { amount: number; currency: string }[]) => {
      const { link, session } = await openedLink({ amount: { value: '40.00', currency: 'EUR' } });
      await fake.pay(session.id, fees ? { fees } : {});
      return (await read(link.id, '/payments')).data[0];
    };
    expect(await paidWith([{ amount: 141, currency: 'EUR' }])).toMatchObject({
      status: 'succeeded',
      fee: { value: '1.41', currency: 'EUR' },
      net: { value: '38.59', currency: 'EUR' },
      fee_source: 'reported',
    });
    expect(await paidWith()).toMatchObject({
      status: 'succeeded',
      fee: { value: '0.80', currency: 'EUR' },
      net: { value: '39.20', currency: 'EUR' },
      fee_source: 'configured',
    });
    await pspConnectionRepository().setFees(connection.id, []);
    expect(fake.violations).toEqual([]);
  });

  it('refuses (400) a forged notification and one signed for another address, reading nothing at Square', async () => {
    const { link, session } = await openedLink();
    fake.notificationUrl = undefined;
    let body = '';
    try {
      body = fake.notification('payment.updated', { payment: await fake.pay(session.id) });
    } finally {
      fake.notificationUrl = `${stack.baseUrl}/psp/square/notifications/${connection.id}`;
    }
    const before = fake.requests.length;
    const address = `${stack.baseUrl}/psp/square/notifications/${connection.id}`;
    for (const signature of [
      fake.signature(body, address, 'another-signature-key'),
      fake.signature(body, `${stack.baseUrl}/psp/square/notifications/pc_other`),
      fake.signature(body.replace('COMPLETED', 'COMPLETED '), address),
    ]) {
      const response = await notify(body, signature);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_notification');
    }
    expect(fake.requests.length).toBe(before);
    expect((await storedLink(link.id)).status).toBe('open');
    // The genuine one pays it.
    expect((await notify(body, fake.signature(body, address))).body.outcome).toBe('paid');
  });

  it('does not pay the link when Square reports another amount, and gives the money back', async () => {
    const { link, session } = await openedLink();
    const paid = await fake.pay(session.id, { charged: { amount: 1, currency: 'EUR' } });
    const read1 = await read(link.id);
    expect(read1).toMatchObject({ status: 'open', payment: null });
    const payments = await read(link.id, '/payments');
    expect(payments.data.find((payment: { id: string }) => payment.id === session.payment_id)).toMatchObject({
      status: 'failed',
      failure: { code: 'amount_mismatch' },
    });
    const given = [...fake.refunds.values()].find((refund) => refund.payment_id === paid.id);
    expect(given).toMatchObject({ amount_money: { amount: 1, currency: 'EUR' } });
  });

  it('deletes the payment link when the link is canceled before the buyer pays', async () => {
    const { link, session } = await openedLink();
    const [linkId, orderId] = session.id.split(':');
    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    expect(fake.links.has(linkId as string)).toBe(false);
    expect(fake.orders.get(orderId as string)?.state).toBe('CANCELED');
    expect(await fake.pay(session.id).catch((error: Error) => error.message)).toMatch(/no open order/);
  });

  it('pays the link from what the sweeper reads back when Square’s notification never came', async () => {
    const { link, session } = await openedLink();
    fake.notificationUrl = undefined;
    try {
      await fake.pay(session.id);
    } finally {
      fake.notificationUrl = `${stack.baseUrl}/psp/square/notifications/${connection.id}`;
    }
    expect((await storedLink(link.id)).status).toBe('open');
    await sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS));
    expect(await read(link.id)).toMatchObject({ status: 'paid', payment: { id: session.payment_id } });
  });

  it('refunds part of the payment; Square’s refund.updated settles it', async () => {
    const { link, session } = await openedLink({ amount: { value: '30.00', currency: 'EUR' } });
    const paid = await fake.pay(session.id);
    const created = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '12.50', currency: 'EUR' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', amount: { value: '12.50', currency: 'EUR' } });
    const refund = [...fake.refunds.values()].find((made) => made.payment_id === paid.id);
    expect(refund).toMatchObject({
      amount_money: { amount: 1250, currency: 'EUR' },
      reason: `Refund ${created.body.id} of ${link.id}`,
    });
    await fake.settleRefund(refund?.id as string, 'COMPLETED');
    const refunds = await read(link.id, '/refunds');
    expect(refunds.data).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
  });

  it('offers Cash App Pay, beside cards, to a link that asks for it', async () => {
    const { session } = await openedLink({ payment_methods: ['cashapp'] });
    expect(fake.links.get(session.id.split(':')[0] as string)?.checkout_options).toMatchObject({
      accepted_payment_methods: { cash_app_pay: true, afterpay_clearpay: false, apple_pay: false },
    });
  });
});
