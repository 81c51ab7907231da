import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeRefund,
  type FakeSession,
  type FakeStripe,
  startFakeStripe,
} from '../../functions/adapters/psp/stripe/test/fake.ts';
import { config } from '../../functions/config.ts';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../../functions/domain/call-budgets.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { openCheckout } from '../../functions/use-cases/checkout.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { NAVIGATION_HEADERS, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

const credentials = { secret_key: 'sk_test_dup_123', webhook_secret: 'whsec_dup_456' };
let stripe: FakeStripe;
let stack: TestStack;
let key: IssuedApiKey;
let first: PspConnection;
let second: PspConnection;

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: credentials.secret_key });
  stack = await startTestStack({ environment: { STRIPE_API_URL: stripe.url } });
  key = await stack.issueKey('dupshop', 'test');
  const stripeConnection = (name: string) =>
    addConnection({ account: 'dupshop', mode: 'test', provider: 'stripe', name, credentials });
  first = await stripeConnection('Stripe A');
  second = await stripeConnection('Stripe B');
});
afterAll(async () => {
  await stack.stop();
  await stripe.stop();
});

const notify = (connection: PspConnection, type: string, object: FakeSession | FakeRefund) => {
  const event = stripe.signedEvent(type, object, credentials.webhook_secret);
  return stack.request('POST', `/psp/stripe/notifications/${connection.id}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
};

/** The checkout page as the function runs it, at another time than now. */
async function checkoutAt(linkId: string, at: Date) {
  const view = await openCheckout(
    {
      links: linkRepository(),
      payments: paymentRepository(),
      psps: pspConnections(),
      now: () => at,
      checkoutBase: config().CHECKOUT_BASE,
      baseUrl: config().BASE_URL,
      random: Math.random,
      timeLeftMs: () => 20_000,
      maxPspCalls: CHECKOUT_PSP_CALLS,
    },
    { id: linkId, method: 'GET', headers: NAVIGATION_HEADERS, sourceAddress: '127.0.0.1' },
  );
  if (view.kind !== 'forward') throw new Error(`no session: ${view.kind}`);
  return view.session;
}

/**
 * The link with a session, then a second one once the first has reached its expiry (a buyer reopening the link
 * a day later): the first is no longer open for us, but its PSP may still confirm a payment made on it.
 */
async function twoSessions(options: { firstAsync: boolean }) {
  const link = await createLink(stack, key.api_key);
  await navigate(link.checkout_url);
  const firstSession = (await storedLink(link.id)).psp_session!;
  expect(firstSession.connection_id).toBe(first.id);
  // An asynchronous method (SEPA Direct Debit) started on it: complete, its money still on the way.
  if (options.firstAsync) stripe.completeSession(firstSession.id, { async: true });
  const later = new Date(Date.parse(firstSession.expires_at) + 60_000);
  stripe.clockAheadMs = later.getTime() - Date.now(); // Stripe checks a session's expiry against its own clock
  const secondSession = await checkoutAt(link.id, later).finally(() => {
    stripe.clockAheadMs = 0;
  });
  expect(secondSession.id).not.toBe(firstSession.id);
  expect((await storedLink(link.id)).psp_session?.id).toBe(secondSession.id);
  return { link, firstSession, secondSession };
}

const connectionOf = (session: { connection_id: string }) =>
  session.connection_id === first.id ? first : second;

const eventTypes = async (linkId: string) =>
  (await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: key.api_key })).body.data.map(
    (event: { type: string }) => event.type,
  );

describe('a second confirmed payment on one link', () => {
  it('(a race) is recorded as its own succeeded payment and reported with payment_link.duplicate_payment', async () => {
    const { link, firstSession, secondSession } = await twoSessions({ firstAsync: false });
    const paidSecond = stripe.completeSession(secondSession.id);
    expect(
      (await notify(connectionOf(secondSession), 'checkout.session.completed', paidSecond)).body.outcome,
    ).toBe('paid');
    // The buyer had paid the first session just before it lapsed; Stripe's notification comes late.
    const paidFirst = stripe.completeSession(firstSession.id);
    const late = await notify(first, 'checkout.session.completed', paidFirst);
    expect(late.status).toBe(200);
    expect(late.body.outcome).toBe('duplicate');
    // Again: reported once.
    expect((await notify(first, 'checkout.session.completed', paidFirst)).body.outcome).toBe('already_paid');

    const stored = await storedLink(link.id);
    expect(stored.payment).toMatchObject({
      id: secondSession.payment_id,
      connection_id: secondSession.connection_id,
    });
    const payments = await paymentRepository().listOfLink(link.id, 'test');
    expect(
      payments
        .filter((payment) => payment.status === 'succeeded')
        .map((payment) => payment.id)
        .sort(),
    ).toEqual([firstSession.payment_id, secondSession.payment_id].sort());
    const types = await eventTypes(link.id);
    expect(types.filter((type: string) => type === 'payment_link.duplicate_payment')).toHaveLength(1);
    expect(types.filter((type: string) => type === 'payment_link.paid')).toHaveLength(1);
  });

  it('(an asynchronous method settling late) is recorded and reported the same way', async () => {
    const { link, firstSession, secondSession } = await twoSessions({ firstAsync: true });
    const pending = await notify(first, 'checkout.session.completed', stripe.sessions.get(firstSession.id)!);
    expect(pending.body.outcome).toBe('ignored');
    expect((await storedLink(link.id)).status).toBe('open');

    const paidSecond = stripe.completeSession(secondSession.id);
    expect(
      (await notify(connectionOf(secondSession), 'checkout.session.completed', paidSecond)).body.outcome,
    ).toBe('paid');
    const settled = stripe.settleAsyncPayment(firstSession.id);
    const late = await notify(first, 'checkout.session.async_payment_succeeded', settled);
    expect(late.body.outcome).toBe('duplicate');
    const duplicate = await paymentRepository().get(link.id, 'test', firstSession.payment_id);
    expect(duplicate).toMatchObject({ status: 'succeeded', provider_reference: settled.payment_intent });
    expect(await eventTypes(link.id)).toContain('payment_link.duplicate_payment');
  });

  /**
   * The duplicate is a succeeded payment of the link (GET .../payments lists it), told "so that they can refund it"
   * (docs/orchestration.md#duplicate-payments): a refund's `payment_id` names it, bounded by its own amount in
   * its own entry on the link (`duplicate_payments`), which its first refund records from the stored payment. A
   * duplicate reported before that entry existed is in the same state as these (reported, nothing recorded).
   */
  it('can be refunded through the API by its payment_id, with its webhook and its books entry', async () => {
    const { link, duplicate } = await paidTwice();

    const refund = await refundOf(link.id, { payment_id: duplicate.payment_id });

    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ payment_id: duplicate.payment_id, amount: link.amount });
    const settled = stripe.settleRefund(refund.body.provider_reference, 'succeeded');
    const notified = await notify(connectionOf(duplicate), 'refund.updated', settled);
    expect(notified.body.outcome).toBe('refunded');
    expect(await eventTypes(link.id)).toContain('refund.succeeded');
    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: key.api_key,
    });
    expect(
      payments.body.data.find((payment: { id: string }) => payment.id === duplicate.payment_id),
    ).toMatchObject({ amount_refunded: link.amount, refund_status: 'full' });
    const books = await stack.request('GET', '/v1/refunds', { key: key.api_key });
    expect(books.body.data).toContainEqual(
      expect.objectContaining({ id: refund.body.id, payment_id: duplicate.payment_id, status: 'succeeded' }),
    );
    // The link stays paid by its own payment, none of which was refunded.
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({ status: 'paid', amount_refunded: { value: '0.00', currency: 'EUR' } });
  });

  it('is refunded in parts up to its own amount, leaving the bound of the link’s own payment whole', async () => {
    const { link, duplicate, own } = await paidTwice();
    const part = (value: string) => ({
      payment_id: duplicate.payment_id,
      amount: { value, currency: 'EUR' },
    });

    expect((await refundOf(link.id, part('4.00'))).status).toBe(201);
    expect((await refundOf(link.id, part('6.50'))).status).toBe(201);
    const past = await refundOf(link.id, part('0.01'));
    expect(past.status).toBe(422);
    expect(past.body.errors).toEqual([expect.objectContaining({ pointer: '/amount/value' })]);

    // The link's own payment: all of it still refundable, by default or by its id, and no more.
    const ownRefund = await refundOf(link.id, {});
    expect(ownRefund.status).toBe(201);
    expect(ownRefund.body).toMatchObject({ payment_id: own.payment_id, amount: link.amount });
    expect((await refundOf(link.id, { payment_id: own.payment_id })).status).toBe(422);
    const stored = await storedLink(link.id);
    expect(stored.refund_reserved_minor).toBe(1050);
    expect(stored.duplicate_payments[duplicate.payment_id]?.refund_reserved_minor).toBe(1050);
  });

  it('(a race) never reserves past its own amount, nor takes from the link’s own payment', async () => {
    const { link, duplicate, own } = await paidTwice();
    const threeEuros = { value: '3.00', currency: 'EUR' };

    // Its first refunds race to record it too; the link's own payment's refunds race beside them.
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        refundOf(link.id, {
          payment_id: index % 2 === 0 ? duplicate.payment_id : own.payment_id,
          amount: threeEuros,
        }),
      ),
    );

    const madeFor = (payment: { payment_id: string }) =>
      responses.filter(
        (response) => response.status === 201 && response.body.payment_id === payment.payment_id,
      );
    // 3 x 3.00 of each 10.50; every other request is told what remains.
    expect(madeFor(duplicate)).toHaveLength(3);
    expect(madeFor(own)).toHaveLength(3);
    expect(responses.filter((response) => response.status === 422)).toHaveLength(10);
    const stored = await storedLink(link.id);
    expect(stored.duplicate_payments[duplicate.payment_id]?.refund_reserved_minor).toBe(900);
    expect(stored.refund_reserved_minor).toBe(900);
    // What Stripe was asked to give back of the duplicate's PaymentIntent.
    const ids = new Set(madeFor(duplicate).map((response) => response.body.id));
    const asked = [...stripe.refunds.values()].filter((refund) =>
      ids.has((refund.metadata as Record<string, string>).refund_id),
    );
    expect(asked.reduce((sum, refund) => sum + Number(refund.amount), 0)).toBe(900);
  });
});

/** A link paid by `own`, then by `duplicate`, a session that lapsed before its PSP confirmed it. */
async function paidTwice() {
  const { link, firstSession, secondSession } = await twoSessions({ firstAsync: false });
  await notify(
    connectionOf(secondSession),
    'checkout.session.completed',
    stripe.completeSession(secondSession.id),
  );
  const late = await notify(first, 'checkout.session.completed', stripe.completeSession(firstSession.id));
  expect(late.body.outcome).toBe('duplicate');
  return { link, own: secondSession, duplicate: firstSession };
}

const refundOf = (linkId: string, body: Record<string, unknown>) =>
  stack.request('POST', `/v1/payment-links/${linkId}/refunds`, { key: key.api_key, body });
