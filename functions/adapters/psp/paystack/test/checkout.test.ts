import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../../../lib/merchant-sdk/index.ts';
import { browser, buyersAt } from '../../../../../test/support/buyers.ts';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { type PspMerchant, type PspStack, startPspMerchant } from '../../../../../test/support/psp-stack.ts';
import { eventually, type Receiver } from '../../../../../test/support/webhooks.ts';
import { pspConnectionRepository } from '../../../../dependencies.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { PAYSTACK_FAKE } from './fake.ts';

/**
 * A buyer pays a link through Paystack on the local stack, its adapter against the fake: our page asks the e-mail
 * Paystack needs, the buyer goes to `authorization_url`, a signed `charge.success` pays the link once the
 * transaction is verified at its amount, and a refund goes through `POST /refund`.
 */
const FAKES = { paystack: PAYSTACK_FAKE };
const KEY = PAYSTACK_FAKE.credentials.secret_key;
let merchant: PspMerchant<typeof FAKES>;
let psps: PspStack<typeof FAKES>;
let key: IssuedApiKey;
let connection: PspConnection;
let hooks: Receiver;
let hookSecret: string;

beforeAll(async () => {
  merchant = await startPspMerchant(FAKES, 'naijashop', 'paystack');
  ({ psps, key, connection, hooks, hookSecret } = merchant);
});
afterAll(async () => {
  await merchant?.stop();
});

const naira = (value: string, body: Record<string, unknown> = {}) =>
  createLink(psps.stack, key.api_key, { amount: { value, currency: 'NGN' }, ...body });

const notify = (event: { body: string; signature: string }) =>
  psps.stack.request('POST', `/psp/paystack/notifications/${connection.id}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json', 'x-paystack-signature': event.signature },
  });

/** The link's Paystack transaction, once the buyer gave their e-mail on our page. */
async function opened(link: { id: string; checkout_url: string }, email = 'ada@example.com') {
  const buyer = browser('127.0.0.1');
  const asked = await buyer.visit(link.checkout_url);
  expect(asked.status).toBe(200);
  expect(asked.text).toMatch(/name="email"/);
  await buyer.answer(link.checkout_url, { answers: '1', email });
  const forwarded = await buyer.visit(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Paystack session');
  return { session, forwarded, transaction: psps.paystack.transactions.get(session.id) };
}

const received = (type: string) =>
  hooks.received
    .map((webhook) => verifyWebhook(webhook.body, webhook.headers as Record<string, string>, hookSecret))
    .filter((event) => event.type === type);

describe('checkout through Paystack', () => {
  it('asks the e-mail first, sends the buyer to authorization_url, and pays the link on a verified charge.success', async () => {
    const link = await naira('5000.00', { payment_methods: ['card', 'bank_transfer', 'ussd'] });
    const { session, forwarded, transaction } = await opened(link, 'ada@example.com');
    expect(forwarded.text).toContain(`url=${session.url}`);
    expect(session.url).toMatch(/^https:\/\/checkout\.paystack\.com\//);
    expect(transaction).toMatchObject({
      email: 'ada@example.com',
      amount: 500000,
      currency: 'NGN',
      channels: ['card', 'bank_transfer', 'ussd'],
      metadata: { link_id: link.id, payment_id: session.payment_id },
    });
    expect(session.id).not.toContain('_');

    const forged = psps.paystack.signedEvent(
      'charge.success',
      psps.paystack.pay(session.id),
      'sk_test_attacker',
    );
    expect((await notify(forged)).status).toBe(400);
    expect((await storedLink(link.id)).status).toBe('open');

    const paid = await notify(
      psps.paystack.signedEvent('charge.success', psps.paystack.pay(session.id), KEY),
    );
    expect(paid.status).toBe(200);
    const read = await psps.stack.request('GET', `/v1/payment-links/${link.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'paystack', connection_id: connection.id },
    });
    const [event] = await eventually(() => {
      const events = received('payment_link.paid').filter((each) => each.data.id === link.id);
      return events.length > 0 && events;
    });
    expect(event).toMatchObject({ data: { id: link.id, status: 'paid' } });
    expect(psps.paystack.violations).toEqual([]);
  });

  it('records the fee Paystack verifies as reported, and the configured estimate where it verifies none', async () => {
    await pspConnectionRepository().setFees(connection.id, [{ percent: 1, fixed: 0 }]);
    const paidWith = async (value: string, fees: number | null) => {
      const link = await naira(value);
      const { session } = await opened(link);
      const transaction = psps.paystack.pay(session.id);
      transaction.fees = fees;
      expect((await notify(psps.paystack.signedEvent('charge.success', transaction, KEY))).status).toBe(200);
      const read = await psps.stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
        key: key.api_key,
      });
      return read.body.data[0];
    };
    expect(await paidWith('1000.00', 1625)).toMatchObject({
      status: 'succeeded',
      fee: { value: '16.25', currency: 'NGN' },
      net: { value: '983.75', currency: 'NGN' },
      fee_source: 'reported',
    });
    expect(await paidWith('1000.00', null)).toMatchObject({
      status: 'succeeded',
      fee: { value: '10.00', currency: 'NGN' },
      net: { value: '990.00', currency: 'NGN' },
      fee_source: 'configured',
    });
    await pspConnectionRepository().setFees(connection.id, []);
    expect(psps.paystack.violations).toEqual([]);
  });

  it('never pays a link on a success Paystack verifies at another amount', async () => {
    const link = await naira('200.00');
    const { session } = await opened(link);
    const transaction = psps.paystack.pay(session.id);
    transaction.amount = 100;
    expect((await notify(psps.paystack.signedEvent('charge.success', transaction, KEY))).status).toBe(200);
    expect((await storedLink(link.id)).status).toBe('open');
    const payments = await psps.stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: key.api_key,
    });
    expect(payments.body.data[0]).toMatchObject({ status: 'failed', failure: { code: 'amount_mismatch' } });
  });

  it('shows the open transaction again to a buyer with other answers: it cannot be ended, so none is opened', async () => {
    const link = await naira('60.00');
    const { session } = await opened(link, 'first@example.com');
    const before = psps.paystack.transactions.size;
    const other = browser('127.0.30.2');
    await other.visit(link.checkout_url);
    await other.answer(link.checkout_url, { answers: '1', email: 'second@example.com' });
    expect((await other.visit(link.checkout_url)).text).toContain(`url=${session.url}`);
    expect(psps.paystack.transactions.size).toBe(before);
    expect((await storedLink(link.id)).psp_session?.id).toBe(session.id);
  });

  it('sends buyers who answer at once, each otherwise, all to one transaction', async () => {
    const link = await naira('75.00');
    const buyers = buyersAt(31, 8);
    await Promise.all(buyers.map((buyer) => buyer.visit(link.checkout_url)));
    await Promise.all(
      buyers.map((buyer, index) =>
        buyer.answer(link.checkout_url, { answers: '1', email: `buyer${index}@example.com` }),
      ),
    );
    const pages = await Promise.all(buyers.map((buyer) => buyer.visit(link.checkout_url)));
    const session = (await storedLink(link.id)).psp_session;
    // Openings that lost the race to store theirs initialized transactions no buyer is ever sent to.
    const shown = new Set(pages.map((page) => /url=(\S+?)"/.exec(page.text)?.[1]));
    expect([...shown]).toEqual([session?.url]);
  });

  it('refunds part of a payment through POST /refund, settled by a signed refund.processed', async () => {
    const link = await naira('1000.00');
    const { session } = await opened(link);
    await notify(psps.paystack.signedEvent('charge.success', psps.paystack.pay(session.id), KEY));
    const asked = await psps.stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '250.00', currency: 'NGN' } },
    });
    expect(asked.status).toBe(201);
    const made = [...psps.paystack.refunds.values()].find(
      (each) => each.transaction.reference === session.id,
    );
    expect(made).toMatchObject({ amount: 25000, merchant_note: `${asked.body.id} ${link.id}` });
    psps.paystack.settleRefund(made!.id, 'processed');
    const settled = await notify(
      psps.paystack.signedEvent('refund.processed', psps.paystack.refundEventData(made!), KEY),
    );
    expect(settled.status).toBe(200);
    const refund = await psps.stack.request('GET', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
    });
    expect(refund.body.data[0]).toMatchObject({ id: asked.body.id, status: 'succeeded' });
    expect(psps.paystack.violations).toEqual([]);
  });
});
