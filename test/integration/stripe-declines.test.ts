import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import {
  cardDeclined,
  type FakeLastPaymentError,
} from '../../functions/adapters/psp/stripe/test/fake-declines.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';

/**
 * What a Stripe Checkout Session that expired after a declined attempt teaches routing
 * (docs/orchestration.md#decline-codes, #observed-outcomes): the payment fails with Stripe's decline through its
 * table, and its connection's outcomes count a decline as `failed`, the issuer or Stripe failing as `outage`, and a
 * session that expired without an attempt as `left`, as Stripe's `checkout.session.expired` notification records it.
 */

// Every outcome is written and read at once, so that each count can be read as soon as it is made.
const FAKES = { stripe: STRIPE_FAKE };
let psps: PspStack<typeof FAKES>;

beforeAll(async () => {
  psps = await startPspStack({
    fakes: FAKES,
    stack: { schedules: false, environment: { OUTCOME_FLUSH_MS: '0', OUTCOME_CACHE_MS: '0' } },
  });
});
afterAll(() => psps?.stop());

/**
 * A shop of its own (its connection's counts are its session's alone) whose buyer opened a Stripe session, was
 * declined with `error` (or never tried), and left it to expire; Stripe tells us so.
 */
async function expiredAfter(shop: string, error: FakeLastPaymentError | null) {
  const { stack, stripe } = psps;
  const key = (await stack.issueKey(shop, 'test')).api_key;
  const connection = await psps.connect(shop, 'stripe');
  const link = await createLink(stack, key, { connections: [connection.id] });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Stripe session');
  if (error) stripe.declines.attempt(session.id, error);
  const event = stripe.signedEvent(
    'checkout.session.expired',
    stripe.declines.expire(session.id),
    STRIPE_FAKE.credentials.webhook_secret,
  );
  const notified = await stack.request('POST', `/psp/stripe/notifications/${connection.id}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
  expect(notified.status).toBe(200);
  const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key });
  const performance = await stack.request(
    'GET',
    `/v1/psp-connections/${connection.id}/performance?currency=EUR`,
    { key },
  );
  const { opened, failed, left, outage } = performance.body.segments[0].last_hour;
  return { payment: payments.body.data[0], counts: { opened, failed, left, outage } };
}

describe('a Stripe session that expired after a declined attempt', () => {
  it("fails with Stripe's decline, and counts as a decline", async () => {
    const { payment, counts } = await expiredAfter('stripedeclined', cardDeclined('insufficient_funds'));
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'insufficient_funds', class: 'soft' },
    });
    expect(payment.failure.message).toContain('(Stripe code insufficient_funds)');
    expect(counts).toEqual({ opened: 1, failed: 1, left: 0, outage: 0 });
  });

  it('fails as an outage when the issuer could not be reached, and counts as one, not as a decline', async () => {
    const { payment, counts } = await expiredAfter('stripeissuerdown', cardDeclined('issuer_not_available'));
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'psp_unavailable', class: 'outage' },
    });
    expect(counts).toEqual({ opened: 1, failed: 0, left: 0, outage: 1 });
  });

  it('stays expired without an attempt, and counts as a buyer who left', async () => {
    const { payment, counts } = await expiredAfter('stripeleft', null);
    expect(payment).toMatchObject({ status: 'expired', failure: { code: 'expired', class: 'soft' } });
    expect(counts).toEqual({ opened: 1, failed: 0, left: 1, outage: 0 });
  });
});
