import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../../../lib/merchant-sdk/index.ts';
import { browser } from '../../../../../test/support/buyers.ts';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { type PspMerchant, type PspStack, startPspMerchant } from '../../../../../test/support/psp-stack.ts';
import { eventually, type Receiver } from '../../../../../test/support/webhooks.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { type FakePayment, MERCADOPAGO_FAKE } from './fake.ts';

/**
 * A buyer pays a link through Mercado Pago on the local stack, its adapter (the official SDK) against the fake: the
 * buyer goes to the preference's `init_point`, a notification signed with `x-signature` pays the link once the
 * payment read back has the link's amount and currency, the merchant gets a signed webhook, a link canceled ends its
 * preference, and a refund goes through `POST /v1/payments/{id}/refunds`.
 */
const FAKES = { mercadopago: MERCADOPAGO_FAKE };
const SECRET = MERCADOPAGO_FAKE.credentials.webhook_secret;
let merchant: PspMerchant<typeof FAKES>;
let psps: PspStack<typeof FAKES>;
let key: IssuedApiKey;
let connection: PspConnection;
let hooks: Receiver;
let hookSecret: string;

beforeAll(async () => {
  merchant = await startPspMerchant(FAKES, 'lojinha', 'mercadopago');
  ({ psps, key, connection, hooks, hookSecret } = merchant);
});
afterAll(async () => {
  await merchant?.stop();
});

const reais = (value: string, body: Record<string, unknown> = {}) =>
  createLink(psps.stack, key.api_key, { amount: { value, currency: 'BRL' }, ...body });

const notify = (notification: { body: string; headers: Record<string, string> }) =>
  psps.stack.request('POST', `/psp/mercadopago/notifications/${connection.id}`, {
    rawBody: notification.body,
    headers: notification.headers,
  });
const signed = (payment: FakePayment, secret: string = SECRET) =>
  psps.mercadopago.notification(payment, secret);

/** The link's preference, once the buyer visited its checkout. */
async function opened(link: { id: string; checkout_url: string }) {
  const forwarded = await browser('127.0.0.1').visit(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Mercado Pago session');
  return { session, forwarded, preference: psps.mercadopago.preferences.get(session.id) };
}

const received = (type: string) =>
  hooks.received
    .map((webhook) => verifyWebhook(webhook.body, webhook.headers as Record<string, string>, hookSecret))
    .filter((event) => event.type === type);

describe('checkout through Mercado Pago', () => {
  it('sends the buyer to init_point, refuses a forged notification, and pays the link on a signed one once the payment is read back', async () => {
    const link = await reais('150.75', { payment_methods: ['pix', 'boleto'] });
    const { session, forwarded, preference } = await opened(link);
    expect(forwarded.text).toContain(`url=${session.url}`);
    expect(session.url).toBe(`https://www.mercadopago.com/mlb/checkout/start?pref_id=${session.id}`);
    expect(preference).toMatchObject({
      items: [{ currency_id: 'BRL', unit_price: 150.75, quantity: 1 }],
      external_reference: `${link.id}/${session.payment_id}`,
      payment_methods: { excluded_payment_methods: [{ id: 'oxxo' }] },
    });

    const paid = psps.mercadopago.pay(session.id);
    for (const forged of [
      signed(paid, 'an-attacker-secret'),
      { ...signed(paid), body: signed(paid).body.replace(paid.id, '1') },
    ]) {
      expect((await notify(forged)).status).toBe(400);
    }
    expect((await storedLink(link.id)).status).toBe('open');

    expect((await notify(signed(paid))).status).toBe(200);
    const read = await psps.stack.request('GET', `/v1/payment-links/${link.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'mercadopago', connection_id: connection.id },
    });
    const [event] = await eventually(() => {
      const events = received('payment_link.paid').filter((each) => each.data.id === link.id);
      return events.length > 0 && events;
    });
    expect(event).toMatchObject({ data: { id: link.id, status: 'paid' } });
    expect(psps.mercadopago.violations).toEqual([]);
  });

  it('never pays a link on a payment Mercado Pago reports at another amount', async () => {
    const link = await reais('200.00');
    const { session } = await opened(link);
    const paid = psps.mercadopago.pay(session.id);
    paid.transaction_amount = 20;
    expect((await notify(signed(paid))).status).toBe(200);
    expect((await storedLink(link.id)).status).toBe('open');
    const payments = await psps.stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: key.api_key,
    });
    expect(payments.body.data[0]).toMatchObject({ status: 'failed', failure: { code: 'amount_mismatch' } });
    // What it took is given back whole, at what it reports.
    const givenBack = [...psps.mercadopago.refunds.values()].find(
      (each) => String(each.payment_id) === paid.id,
    );
    expect(givenBack).toMatchObject({ amount: 20 });
  });

  it('ends the preference early when its link is canceled: its page takes no payment after', async () => {
    const link = await reais('60.00');
    const { session } = await opened(link);
    const canceled = await psps.stack.request('POST', `/v1/payment-links/${link.id}/cancel`, {
      key: key.api_key,
    });
    expect(canceled.status).toBe(200);
    expect(
      Date.parse(psps.mercadopago.preferences.get(session.id)?.expiration_date_to ?? ''),
    ).toBeLessThanOrEqual(Date.now());
    expect(() => psps.mercadopago.pay(session.id)).toThrow(/has ended/);
    expect(psps.mercadopago.violations).toEqual([]);
  });

  it('refunds part of a payment through POST /v1/payments/{id}/refunds, settled when Mercado Pago notifies the payment again', async () => {
    const link = await reais('1000.00');
    const { session } = await opened(link);
    const paid = psps.mercadopago.pay(session.id);
    await notify(signed(paid));
    const asked = await psps.stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '250.00', currency: 'BRL' } },
    });
    expect(asked.status).toBe(201);
    const made = [...psps.mercadopago.refunds.values()].find((each) => String(each.payment_id) === paid.id);
    expect(made).toMatchObject({ amount: 250 });
    const sent = psps.mercadopago.requests.find(
      (each) => each.method === 'POST' && each.path === `/v1/payments/${paid.id}/refunds`,
    );
    expect(sent?.headers['x-idempotency-key']).toBe(asked.body.id);
    psps.mercadopago.settleRefund(made!.id, 'approved');
    expect((await notify(signed(paid))).status).toBe(200);
    const refunds = await psps.stack.request('GET', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
    });
    expect(refunds.body.data[0]).toMatchObject({ id: asked.body.id, status: 'succeeded' });
    await eventually(() => received('refund.succeeded').some((each) => each.data.id === asked.body.id));
    expect(psps.mercadopago.violations).toEqual([]);
  });
});
