import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../../../lib/merchant-sdk/index.ts';
import { browser } from '../../../../../test/support/buyers.ts';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { type PspMerchant, type PspStack, startPspMerchant } from '../../../../../test/support/psp-stack.ts';
import { eventually, type Receiver } from '../../../../../test/support/webhooks.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { XENDIT_FAKE, type XenditNotification } from './fake.ts';

/**
 * A buyer pays a link through Xendit on the local stack, its adapter against the fake: the buyer goes to the
 * session's `payment_link_url`, a `payment_session.completed` carrying the connection's verification token pays
 * the link once the session is read back at its amount, a link canceled early cancels its session, and a refund
 * goes through `POST /refunds`.
 */
const FAKES = { xendit: XENDIT_FAKE };
const TOKEN = XENDIT_FAKE.credentials.callback_token;
let merchant: PspMerchant<typeof FAKES>;
let psps: PspStack<typeof FAKES>;
let key: IssuedApiKey;
let connection: PspConnection;
let hooks: Receiver;
let hookSecret: string;

beforeAll(async () => {
  merchant = await startPspMerchant(FAKES, 'jakartashop', 'xendit');
  ({ psps, key, connection, hooks, hookSecret } = merchant);
});
afterAll(async () => {
  await merchant?.stop();
});

const rupiah = (value: string, body: Record<string, unknown> = {}) =>
  createLink(psps.stack, key.api_key, { amount: { value, currency: 'IDR' }, ...body });

const notify = (event: XenditNotification) =>
  psps.stack.request('POST', `/psp/xendit/notifications/${connection.id}`, {
    rawBody: event.body,
    headers: event.headers,
  });

/** The link's Xendit session, once a buyer opened its checkout page. */
async function opened(link: { id: string; checkout_url: string }) {
  const page = await browser('127.0.0.1').visit(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Xendit session');
  return { page, session, held: psps.xendit.sessions.get(session.id) };
}

const received = (type: string) =>
  hooks.received
    .map((webhook) => verifyWebhook(webhook.body, webhook.headers as Record<string, string>, hookSecret))
    .filter((event) => event.type === type);

describe('checkout through Xendit', () => {
  it('sends the buyer to payment_link_url and pays the link on a token-checked notification read back at its amount', async () => {
    const link = await rupiah('250000.00', { payment_methods: ['qris', 'ovo', 'dana'] });
    const { page, session, held } = await opened(link);
    expect(page.text).toContain(`url=${session.url}`);
    expect(session.url).toBe(`https://checkout-staging.xendit.co/sessions/${session.id}`);
    expect(held).toMatchObject({
      reference_id: session.payment_id,
      amount: 250000,
      currency: 'IDR',
      country: 'ID',
      allowed_payment_channels: ['QRIS', 'OVO', 'DANA'],
      metadata: { link_id: link.id, payment_id: session.payment_id },
    });

    psps.xendit.pay(session.id);
    const wrongToken = psps.xendit.sessionEvent('payment_session.completed', session.id, `${TOKEN}0`);
    expect((await notify(wrongToken)).status).toBe(400);
    expect((await storedLink(link.id)).status).toBe('open');

    const paid = await notify(psps.xendit.sessionEvent('payment_session.completed', session.id, TOKEN));
    expect(paid.status).toBe(200);
    const read = await psps.stack.request('GET', `/v1/payment-links/${link.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'xendit', connection_id: connection.id },
    });
    const [event] = await eventually(() => {
      const events = received('payment_link.paid').filter((each) => each.data.id === link.id);
      return events.length > 0 && events;
    });
    expect(event).toMatchObject({ data: { id: link.id, status: 'paid' } });
    expect(psps.xendit.violations).toEqual([]);
  });

  it('never pays a link on a session Xendit reads back at another amount', async () => {
    const link = await rupiah('80000.00');
    const { session } = await opened(link);
    const held = psps.xendit.pay(session.id);
    held.amount = 8000;
    const notified = await notify(psps.xendit.sessionEvent('payment_session.completed', session.id, TOKEN));
    expect(notified.status).toBe(200);
    expect((await storedLink(link.id)).status).toBe('open');
    const payments = await psps.stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: key.api_key,
    });
    expect(payments.body.data[0]).toMatchObject({ status: 'failed', failure: { code: 'amount_mismatch' } });
  });

  it('cancels the session early when its link is canceled, so its page can no longer be paid', async () => {
    const link = await rupiah('60000.00');
    const { session } = await opened(link);
    const canceled = await psps.stack.request('POST', `/v1/payment-links/${link.id}/cancel`, {
      key: key.api_key,
    });
    expect(canceled.status).toBe(200);
    expect(psps.xendit.sessions.get(session.id)?.status).toBe('CANCELED');
    expect((await storedLink(link.id)).status).toBe('canceled');
    expect(psps.xendit.violations).toEqual([]);
  });

  it('refunds part of a payment through POST /refunds, settled by a token-checked refund.succeeded', async () => {
    const link = await rupiah('1000000.00');
    const { session } = await opened(link);
    const paid = psps.xendit.pay(session.id);
    await notify(psps.xendit.sessionEvent('payment_session.completed', session.id, TOKEN));
    const asked = await psps.stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '250000.00', currency: 'IDR' } },
    });
    expect(asked.status).toBe(201);
    const made = [...psps.xendit.refunds.values()].find(
      (each) => each.payment_request_id === paid.payment_request_id,
    );
    expect(made).toMatchObject({ amount: 250000, reference_id: asked.body.id, status: 'PENDING' });
    psps.xendit.settleRefund(made!.id, 'SUCCEEDED');
    const settled = await notify(psps.xendit.refundEvent(made!.id, TOKEN));
    expect(settled.status).toBe(200);
    const refunds = await psps.stack.request('GET', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
    });
    expect(refunds.body.data[0]).toMatchObject({ id: asked.body.id, status: 'succeeded' });
    const [event] = await eventually(() => {
      const events = received('refund.succeeded').filter((each) => each.data.id === asked.body.id);
      return events.length > 0 && events;
    });
    expect(event).toMatchObject({ data: { id: asked.body.id, status: 'succeeded' } });
    expect(psps.xendit.violations).toEqual([]);
  });
});
