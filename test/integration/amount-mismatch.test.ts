import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { CHECKOUT_FAKE } from '../../functions/adapters/psp/checkout-com/test/fake.ts';
import { MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { PAYPAL_FAKE } from '../../functions/adapters/psp/paypal/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { config } from '../../functions/config.ts';
import { sandboxSessionStore } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Amount } from '../../functions/domain/money.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import type { PspSession } from '../../functions/domain/payment-link.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { mismatchRefundId } from '../../functions/use-cases/charged-amounts.ts';
import {
  createLink,
  sandboxNotification,
  sandboxReportsAmount,
  storedLink,
} from '../support/checkout-helpers.ts';
import { capturedOutput } from '../support/log-capture.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = {
  stripe: STRIPE_FAKE,
  mollie: MOLLIE_FAKE,
  adyen: ADYEN_FAKE,
  paypal: PAYPAL_FAKE,
  checkout_com: CHECKOUT_FAKE,
};

/**
 * A PSP that reports a success at another amount or currency than the payment's never pays the link
 * (docs/security.md#amounts-the-psp-reports): each PSP's fake is told to report 0.01 USD for a 10.00 EUR
 * payment, on every path that learns of a success. The payment fails with `amount_mismatch`, the merchant gets
 * `payment_link.payment_failed`, and what was taken is refunded (or the authorization voided, never captured).
 */
type Provider = keyof typeof FAKES | 'sandbox';

let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let key: IssuedApiKey;
const connections = {} as Record<Provider, PspConnection>;
const TAMPERED: Amount = { value: '0.01', currency: 'USD' };

beforeAll(async () => {
  // The sweepers run only when a test runs them.
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  stack = psps.stack;
  key = await stack.issueKey('mismatchshop', 'test');
  for (const provider of ['sandbox', 'stripe', 'mollie', 'adyen', 'paypal', 'checkout_com'] as const) {
    connections[provider] = await psps.connect('mismatchshop', provider);
  }
});
afterAll(() => psps?.stop());

/** A 10.00 EUR link served by one connection, whose buyer was sent to its PSP: the session. */
async function opened(provider: Provider): Promise<{ linkId: string; session: PspSession }> {
  const link = await createLink(stack, key.api_key, {
    amount: { value: '10.00', currency: 'EUR' },
    connections: [connections[provider].id],
  });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error(`no ${provider} session`);
  return { linkId: link.id, session };
}

const notify = (provider: Provider, rawBody: string, headers: Record<string, string>) =>
  stack.request('POST', `/psp/${provider}/notifications/${connections[provider].id}`, { rawBody, headers });

/** The sandbox session was paid, and the sandbox now reports `amount` for it. */
async function sandboxPaidAt(sessionId: string, amount: Amount): Promise<void> {
  await sandboxSessionStore().complete(sessionId, `sbpay_mismatch_${sessionId}`, new Date());
  await sandboxReportsAmount(stack.tableName, sessionId, amount);
}

/** The link is not paid by the attempt: open still, the payment failed `amount_mismatch`, and the merchant told. */
async function expectNotPaidBy(linkId: string, paymentId: string, status = 'open'): Promise<void> {
  const read = (path: string) =>
    stack.request('GET', `/v1/payment-links/${linkId}${path}`, { key: key.api_key });
  expect((await read('')).body).toMatchObject({ status, payment: null });
  const payment = (await read('/payments')).body.data.find((p: { id: string }) => p.id === paymentId);
  expect(payment).toMatchObject({
    status: 'failed',
    amount: { value: '10.00', currency: 'EUR' },
    failure: { code: 'amount_mismatch', message: expect.stringContaining('0.01 USD') },
  });
  const events = (await read('/events')).body.data.map((event: { type: string }) => event.type);
  expect(events).toContain('payment_link.payment_failed');
  expect(events).not.toContain('payment_link.paid');
}

describe('a success reported at another amount, through each PSP’s notification', () => {
  it('sandbox: not paid, amount_mismatch, payment_failed, the refund and the mismatch logged as an error', async () => {
    const { linkId, session } = await opened('sandbox');
    await sandboxPaidAt(session.id, TAMPERED);
    let response: Awaited<ReturnType<typeof notify>> | undefined;
    const output = await capturedOutput(async () => {
      const { rawBody, headers } = sandboxNotification({ session_id: session.id, link_id: linkId });
      response = await notify('sandbox', rawBody, headers);
    });
    expect(response?.status).toBe(200);
    expect(response?.body.outcome).toBe('failed');
    await expectNotPaidBy(linkId, session.payment_id);
    const logged = output.split('\n').find((line) => line.includes('A PSP reported another amount'));
    expect(JSON.parse(logged ?? '{}')).toMatchObject({
      level: 'ERROR',
      link_id: linkId,
      payment_id: session.payment_id,
      expected: '10.00 EUR',
      reported: '0.01 USD',
      given_back: expect.stringMatching(/^refund sbre_\w+ succeeded$/),
    });
  });

  it('Stripe: checkout.session.completed at 0.01 USD refunds the PaymentIntent in full', async () => {
    const { stripe } = psps;
    const { linkId, session } = await opened('stripe');
    const fake = stripe.sessions.get(session.id);
    if (!fake) throw new Error('no Stripe session');
    Object.assign(fake, { amount_total: 1, currency: 'usd' });
    const paid = stripe.completeSession(session.id);
    const event = stripe.signedEvent(
      'checkout.session.completed',
      paid,
      STRIPE_FAKE.credentials.webhook_secret,
    );
    const response = await notify('stripe', event.body, {
      'content-type': 'application/json',
      'stripe-signature': event.signature,
    });
    expect(response.body.outcome).toBe('failed');
    await expectNotPaidBy(linkId, session.payment_id);
    const refunds = [...stripe.refunds.values()].filter((r) => r.payment_intent === paid.payment_intent);
    expect(refunds).toMatchObject([
      { amount: 1, metadata: { refund_id: mismatchRefundId(session.payment_id) } },
    ]);
    expect(stripe.violations).toEqual([]);
  });

  it('Mollie: a payment paid at 0.01 USD is refunded in full', async () => {
    const { mollie } = psps;
    const { linkId, session } = await opened('mollie');
    const payment = mollie.payments.get(session.id);
    if (!payment) throw new Error('no Mollie payment');
    payment.amount = { value: '0.01', currency: 'USD' };
    mollie.setStatus(session.id, 'paid');
    const response = await notify('mollie', mollie.webhookBody(session.id), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.body.outcome).toBe('failed');
    await expectNotPaidBy(linkId, session.payment_id);
    const refunds = [...mollie.refunds.values()].filter((r) => r.paymentId === session.id);
    expect(refunds).toMatchObject([{ amount: { value: '0.01', currency: 'USD' } }]);
    expect(mollie.violations).toEqual([]);
  });

  it('Adyen: an AUTHORISATION of a link amended to 0.01 USD is refunded in full', async () => {
    const { adyen } = psps;
    const { linkId, session } = await opened('adyen');
    const link = adyen.paymentLinks.get(session.id);
    if (!link) throw new Error('no Adyen payment link');
    link.amount = { value: 1, currency: 'USD' };
    const item = adyen.pay(session.id);
    const response = await notify(
      'adyen',
      adyen.notification([item], { hmacKey: ADYEN_FAKE.credentials.hmac_key }),
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(200);
    await expectNotPaidBy(linkId, session.payment_id);
    const refunds = [...adyen.refunds.values()].filter((r) => r.paymentPspReference === item.pspReference);
    expect(refunds).toMatchObject([{ amount: { value: 1, currency: 'USD' } }]);
    expect(adyen.violations).toEqual([]);
  });

  it('PayPal: CHECKOUT.ORDER.APPROVED of an order amended to 0.01 USD is never captured', async () => {
    const { paypal } = psps;
    const { linkId, session } = await opened('paypal');
    const order = paypal.orders.get(session.id);
    if (!order) throw new Error('no PayPal order');
    order.purchase_units[0] = {
      ...order.purchase_units[0],
      amount: { currency_code: 'USD', value: '0.01' },
    };
    paypal.approve(order.id);
    const { body, headers } = paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id });
    const response = await notify('paypal', body, headers);
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('failed');
    expect(paypal.captures.get(order.id)).toBeUndefined();
    await expectNotPaidBy(linkId, session.payment_id);
    expect(paypal.violations).toEqual([]);
  });

  it('Checkout.com: payment_approved of an authorization at 0.01 USD voids it, never captures', async () => {
    const { checkout_com: checkout } = psps;
    const { linkId, session } = await opened('checkout_com');
    const payment = await checkout.pay(session.id);
    Object.assign(payment, { amount: 1, currency: 'USD' });
    const approved = checkout.webhooks.find((body) => body.includes(payment.id)) as string;
    const { body, headers } = checkout.signed(approved);
    const response = await notify('checkout_com', body, headers);
    expect(response.body.outcome).toBe('failed');
    expect(payment.status).toBe('Voided');
    expect(payment.actions.map((action) => action.type)).not.toContain('Capture');
    await expectNotPaidBy(linkId, session.payment_id);
    expect(checkout.violations).toEqual([]);
  });
});

describe('a success reported at another amount, on the other paths that learn of it', () => {
  it('the buyer’s return from PayPal captures nothing and pays nothing', async () => {
    const { paypal } = psps;
    const { linkId, session } = await opened('paypal');
    const order = paypal.orders.get(session.id);
    if (!order) throw new Error('no PayPal order');
    order.purchase_units[0] = {
      ...order.purchase_units[0],
      amount: { currency_code: 'USD', value: '0.01' },
    };
    paypal.approve(order.id);
    const back = await navigate(`${order.return_url}&token=${order.id}`);
    expect(back.status).toBe(200);
    expect(paypal.captures.get(order.id)).toBeUndefined();
    await expectNotPaidBy(linkId, session.payment_id);
  });

  it('the buyer’s return from Checkout.com voids an authorization at 0.01 USD on a 10.00 EUR link', async () => {
    const { checkout_com: checkout } = psps;
    const { linkId, session } = await opened('checkout_com');
    const payment = await checkout.pay(session.id);
    // The link still asks 10.00 EUR: what was authorized is what counts.
    Object.assign(payment, { amount: 1, currency: 'USD' });
    const back = await navigate(`${config().CHECKOUT_BASE}/${linkId}/complete?payment=${session.payment_id}`);
    expect(back.status).toBe(200);
    expect(payment.status).toBe('Voided');
    await expectNotPaidBy(linkId, session.payment_id);
  });

  it('the missed-notification sweeper refunds a Stripe payment at 0.01 USD and pays nothing', async () => {
    const { stripe } = psps;
    const { linkId, session } = await opened('stripe');
    Object.assign(stripe.sessions.get(session.id) ?? {}, { amount_total: 1, currency: 'usd' });
    const paid = stripe.completeSession(session.id);
    await sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    await expectNotPaidBy(linkId, session.payment_id);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paid.payment_intent)).toHaveLength(
      1,
    );
  });

  it('a cancel that finds the session paid at another amount refunds it and cancels the link', async () => {
    const { linkId, session } = await opened('sandbox');
    await sandboxPaidAt(session.id, TAMPERED);
    const canceled = await stack.request('POST', `/v1/payment-links/${linkId}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    await expectNotPaidBy(linkId, session.payment_id, 'canceled');
  });

  it('a copy of the notification after the mismatch was recorded refunds nothing more and reports nothing more', async () => {
    const { stripe } = psps;
    const { linkId, session } = await opened('stripe');
    Object.assign(stripe.sessions.get(session.id) ?? {}, { amount_total: 1, currency: 'usd' });
    const paid = stripe.completeSession(session.id);
    const event = stripe.signedEvent(
      'checkout.session.completed',
      paid,
      STRIPE_FAKE.credentials.webhook_secret,
    );
    const headers = { 'content-type': 'application/json', 'stripe-signature': event.signature };
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, async () => (await notify('stripe', event.body, headers)).body.outcome),
    );
    expect(outcomes).toContain('failed');
    const requests = stripe.requests.filter(
      (request) => request.path === '/v1/refunds' && request.form.payment_intent === paid.payment_intent,
    );
    expect(new Set(requests.map((request) => request.headers['idempotency-key']))).toEqual(
      new Set([mismatchRefundId(session.payment_id)]),
    );
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paid.payment_intent)).toHaveLength(
      1,
    );
    expect((await notify('stripe', event.body, headers)).status).toBe(200);
    expect(
      stripe.requests.filter(
        (r) => r.path === '/v1/refunds' && r.form.payment_intent === paid.payment_intent,
      ),
    ).toHaveLength(requests.length);
    const events = (await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: key.api_key }))
      .body.data;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['payment_link.payment_failed']);
  });
});
