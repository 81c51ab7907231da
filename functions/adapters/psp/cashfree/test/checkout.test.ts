import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { eventually } from '../../../../../test/support/eventually.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import { type Receiver, startReceiver } from '../../../../../test/support/webhooks.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { mismatchRefundId } from '../../../../use-cases/charged-amounts.ts';
import { CASHFREE_FAKE, type FakeCashfree, type FakeWebhook } from './fake.ts';

/**
 * Checkout through a Cashfree connection, end to end through the handlers and the official SDK against the fake
 * (`CASHFREE_API_URL`): a payment link per attempt, paid on Cashfree's page, its signed webhook at
 * `/psp/cashfree/notifications/<connection id>`, the link read back before it is paid, and the merchant's own
 * signed webhook; a cancel that ends the Cashfree link; a partial refund.
 */
const FAKES = { cashfree: CASHFREE_FAKE };
let psps: PspStack<typeof FAKES>;
let cashfree: FakeCashfree;
let stack: TestStack;
let key: IssuedApiKey;
let connection: PspConnection;
let merchant: Receiver;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  ({ stack, cashfree } = psps);
  key = await stack.issueKey('indiashop', 'test');
  connection = await psps.connect('indiashop', 'cashfree');
  merchant = await startReceiver();
});
afterAll(async () => {
  await merchant?.close();
  await psps?.stop();
});

const notify = (webhook: FakeWebhook, connectionId = connection.id) =>
  stack.request('POST', `/psp/cashfree/notifications/${connectionId}`, {
    rawBody: webhook.body,
    headers: webhook.headers,
  });

const readLink = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: key.api_key })).body;

/** A 499.00 INR link served by the Cashfree connection, whose buyer was sent to Cashfree: its session. */
async function opened() {
  const link = await createLink(stack, key.api_key, {
    amount: { value: '499.00', currency: 'INR' },
    connections: [connection.id],
    webhook_url: merchant.url,
  });
  const page = await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Cashfree session');
  return { link, page, session };
}

describe('checkout through a Cashfree connection', () => {
  it('pays the link on a signed webhook, once Cashfree confirms the amount, and signs the merchant’s webhook', async () => {
    const { link, session } = await opened();
    const atCashfree = cashfree.links.get(session.id);
    expect(session).toMatchObject({
      provider: 'cashfree',
      connection_id: connection.id,
      url: atCashfree?.link_url,
    });
    expect(atCashfree).toMatchObject({
      link_amount: 499,
      link_currency: 'INR',
      link_notes: { link_id: link.id, payment_id: session.payment_id, mode: 'test' },
      link_meta: { notify_url: expect.stringMatching(`/psp/cashfree/notifications/${connection.id}$`) },
    });

    const order = cashfree.pay(session.id);
    const response = await notify(cashfree.paymentWebhook(session.id));
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('paid');
    expect(await readLink(link.id)).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'cashfree', reference: order.order_id },
    });
    const [delivered] = await eventually(async () => merchant.received.length > 0 && merchant.received);
    const payload = new Webhook(key.webhook_secret).verify(
      delivered?.body ?? '',
      delivered?.headers as Record<string, string>,
    );
    expect(payload).toMatchObject({ type: 'payment_link.paid', data: { id: link.id, status: 'paid' } });
    // The link's own event, sent to its notify_url, names the same payment: nothing new.
    expect((await notify(cashfree.linkWebhook(session.id))).body.outcome).toBe('already_paid');
    expect(cashfree.violations).toEqual([]);
  });

  it('refuses a forged webhook and one signed with another connection’s secret, and changes nothing', async () => {
    const { link, session } = await opened();
    cashfree.pay(session.id);
    const genuine = cashfree.paymentWebhook(session.id);
    const forged = await notify({ ...genuine, body: genuine.body.replace('SUCCESS', 'SUCCESS ') });
    const foreign = await notify(
      cashfree.paymentWebhook(session.id, { secret: 'cfsk_ma_test_another_account' }),
    );
    for (const refused of [forged, foreign]) {
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('invalid_notification');
    }
    expect((await readLink(link.id)).status).toBe('open');
  });

  it('never pays a link whose payment Cashfree reports at another amount, and gives back what it took', async () => {
    const { link, session } = await opened();
    const order = cashfree.pay(session.id);
    cashfree.reportAmount(session.id, 1, 'INR');
    const response = await notify(cashfree.paymentWebhook(session.id));
    expect(response.body.outcome).toBe('failed');
    expect(await readLink(link.id)).toMatchObject({ status: 'open', payment: null });
    const payments = (
      await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key })
    ).body.data;
    expect(payments.find((payment: { id: string }) => payment.id === session.payment_id)).toMatchObject({
      status: 'failed',
      failure: { code: 'amount_mismatch' },
    });
    expect(cashfree.refunds.get(`${order.order_id}/${mismatchRefundId(session.payment_id)}`)).toMatchObject({
      refund_amount: 1,
    });
  });

  it('ends the Cashfree link when the merchant cancels the payment link', async () => {
    const { link, session } = await opened();
    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(cashfree.links.get(session.id)?.link_status).toBe('CANCELLED');
  });

  it('refunds part of the payment on its Cashfree order, settled by Cashfree’s refund webhook', async () => {
    const { link, session } = await opened();
    const order = cashfree.pay(session.id);
    expect((await notify(cashfree.paymentWebhook(session.id))).body.outcome).toBe('paid');
    const asked = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '99.50', currency: 'INR' } },
    });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ status: 'pending', amount: { value: '99.50', currency: 'INR' } });
    const reference = `${order.order_id}/${asked.body.id}`;
    expect(cashfree.refunds.get(reference)).toMatchObject({ refund_amount: 99.5, refund_note: link.id });
    cashfree.settleRefund(reference, 'SUCCESS');
    expect((await notify(cashfree.refundWebhook(reference))).body.outcome).toBe('refunded');
    const refunds = (await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: key.api_key }))
      .body.data;
    expect(refunds).toMatchObject([
      { id: asked.body.id, status: 'succeeded', provider_reference: reference },
    ]);
    expect(cashfree.violations).toEqual([]);
  });
});
