import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import {
  cardDeclined,
  type FakeLastPaymentError,
} from '../../functions/adapters/psp/stripe/test/fake-declines.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { OUTCOMES_AT_ONCE, openedSession } from '../support/session-outcomes.ts';

/**
 * What a Stripe Checkout Session that expired after a declined attempt teaches routing
 * (docs/orchestration.md#decline-codes, #observed-outcomes): the payment fails with Stripe's decline through its
 * table, and its connection's outcomes count a decline as `failed`, the issuer or Stripe failing as `outage`, and a
 * session that expired without an attempt as `left`, as Stripe's `checkout.session.expired` notification records it.
 */

const FAKES = { stripe: STRIPE_FAKE };
let psps: PspStack<typeof FAKES>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false, environment: OUTCOMES_AT_ONCE } });
});
afterAll(() => psps?.stop());

/**
 * A shop's Stripe session (`openedSession`) whose buyer was declined with `error` (or never tried) and left it to
 * expire; Stripe tells us so. What became of it.
 */
async function expiredAfter(shop: string, error: FakeLastPaymentError | null) {
  const { connection, session, outcome } = await openedSession(psps, shop, 'stripe');
  const { stack, stripe } = psps;
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
  return outcome();
}

describe('a Stripe session that expired after a declined attempt', () => {
  it("fails with Stripe's decline, and counts as a decline", async () => {
    const { payment, events, counts } = await expiredAfter(
      'stripedeclined',
      cardDeclined('insufficient_funds'),
    );
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'insufficient_funds', class: 'soft' },
    });
    expect(payment.failure.message).toContain('(Stripe code insufficient_funds)');
    expect(events).toEqual(['payment_link.payment_failed']);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 1, left: 0, outage: 0 });
  });

  it('fails as an outage when the issuer could not be reached, and counts as one, not as a decline', async () => {
    const { payment, counts } = await expiredAfter('stripeissuerdown', cardDeclined('issuer_not_available'));
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'psp_unavailable', class: 'outage' },
    });
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 0, left: 0, outage: 1 });
  });

  it('stays expired without an attempt, and counts as a buyer who left', async () => {
    const { payment, events, counts } = await expiredAfter('stripeleft', null);
    expect(payment).toMatchObject({ status: 'expired', failure: { code: 'expired', class: 'soft' } });
    expect(events).toEqual([]);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 0, left: 1, outage: 0 });
  });
});
