import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { type FakeSession, type FakeStripe, startFakeStripe } from '../support/fake-stripe.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

const credentials = { secret_key: 'sk_test_dup_123', webhook_secret: 'whsec_dup_456' };
let stripe: FakeStripe;
let stack: TestStack;
let key: IssuedApiKey;
let first: PspConnection;
let second: PspConnection;

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: credentials.secret_key });
  process.env.STRIPE_API_URL = stripe.url; // read once by functions/config.ts, before the stack's first request
  stack = await startTestStack();
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

const notify = (connection: PspConnection, type: string, session: FakeSession) => {
  const event = stripe.signedEvent(type, session, credentials.webhook_secret);
  return stack.request('POST', `/psp/stripe/notifications/${connection.id}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
};

/** The link with a session at the first connection, then (the buyer switching provider) one at the second. */
async function twoSessions(options: { firstAsync: boolean }) {
  const link = await createLink(stack, key.api_key);
  await navigate(link.checkout_url);
  const firstSession = (await storedLink(link.id)).psp_session!;
  expect(firstSession.connection_id).toBe(first.id);
  // Paid before the switch: Stripe refuses to expire a completed session, so both stay payable.
  stripe.completeSession(firstSession.id, { async: options.firstAsync });
  await navigate(`${link.checkout_url}?via=${second.id}`);
  const secondSession = (await storedLink(link.id)).psp_session!;
  expect(secondSession.connection_id).toBe(second.id);
  expect(stripe.requests.some((r) => r.path === `/v1/checkout/sessions/${firstSession.id}/expire`)).toBe(
    true,
  );
  return { link, firstSession, secondSession };
}

const eventTypes = async (linkId: string) =>
  (await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: key.api_key })).body.data.map(
    (event: { type: string }) => event.type,
  );

describe('a second confirmed payment on one link', () => {
  it('(a race) is recorded as its own succeeded payment and reported with payment_link.duplicate_payment', async () => {
    const { link, firstSession, secondSession } = await twoSessions({ firstAsync: false });
    const paidSecond = stripe.completeSession(secondSession.id);
    expect((await notify(second, 'checkout.session.completed', paidSecond)).body.outcome).toBe('paid');
    const late = await notify(first, 'checkout.session.completed', stripe.sessions.get(firstSession.id)!);
    expect(late.status).toBe(200);
    expect(late.body.outcome).toBe('duplicate');
    // Again: reported once.
    expect(
      (await notify(first, 'checkout.session.completed', stripe.sessions.get(firstSession.id)!)).body.outcome,
    ).toBe('already_paid');

    const stored = await storedLink(link.id);
    expect(stored.payment).toMatchObject({ id: secondSession.payment_id, connection_id: second.id });
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
    expect((await notify(second, 'checkout.session.completed', paidSecond)).body.outcome).toBe('paid');
    const settled = stripe.settleAsyncPayment(firstSession.id);
    const late = await notify(first, 'checkout.session.async_payment_succeeded', settled);
    expect(late.body.outcome).toBe('duplicate');
    const duplicate = await paymentRepository().get(link.id, 'test', firstSession.payment_id);
    expect(duplicate).toMatchObject({ status: 'succeeded', provider_reference: settled.payment_intent });
    expect(await eventTypes(link.id)).toContain('payment_link.duplicate_payment');
  });
});
