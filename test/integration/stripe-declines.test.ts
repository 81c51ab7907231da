import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSession } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import {
  cardDeclined,
  debitFailed,
  type FakeLastPaymentError,
} from '../../functions/adapters/psp/stripe/test/fake-declines.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { OUTCOMES_AT_ONCE, openedSession } from '../support/session-outcomes.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';

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

  it('tells the merchant once, with the decline, however many learn of it at once', async () => {
    const { key, connection, link, session, outcome } = await openedSession(psps, 'striperace', 'stripe');
    const { stack, stripe } = psps;
    stripe.declines.attempt(session.id, cardDeclined('do_not_honor', 'do_not_try_again'));
    const event = stripe.signedEvent(
      'checkout.session.expired',
      stripe.declines.expire(session.id),
      STRIPE_FAKE.credentials.webhook_secret,
    );
    // A change the checkout ends the session for: the buyer coming back reads it from Stripe too.
    const patched = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key,
      body: { description: 'Changed while the buyer was away' },
    });
    expect(patched.status).toBe(200);
    const notify = () =>
      stack.request('POST', `/psp/stripe/notifications/${connection.id}`, {
        rawBody: event.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, notify),
      sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000)),
      sweepPendingPayments(new Date(Date.parse(session.expires_at) + 60_001)),
      navigate(`${link.checkout_url}?canceled=1`),
      navigate(`${link.checkout_url}?canceled=1`),
    ]);
    for (const answer of answers.slice(0, 6)) expect((answer as { status: number }).status).toBe(200);
    const { payment, events } = await outcome();
    expect(payment).toMatchObject({ status: 'failed', failure: { code: 'do_not_retry', class: 'hard' } });
    expect(events.filter((type: string) => type === 'payment_link.payment_failed')).toHaveLength(1);
    const sent = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key });
    const failed = sent.body.data.find(
      (sentEvent: { type: string }) => sentEvent.type === 'payment_link.payment_failed',
    );
    const sentFailed = await stack.request('GET', `/v1/events/${failed.id}`, { key });
    expect(sentFailed.body.data.payment).toMatchObject({
      id: session.payment_id,
      status: 'failed',
      failure: { code: 'do_not_retry', class: 'hard' },
    });
  });
});

describe('a Stripe session paid by SEPA Direct Debit whose debit the bank returns', () => {
  it("fails with the bank's code, tells the merchant once, counts a decline, and leaves the link payable", async () => {
    const { key, connection, link, session, outcome } = await openedSession(psps, 'stripesepa', 'stripe');
    const { stack, stripe } = psps;
    const notify = (type: string, object: FakeSession) => {
      const event = stripe.signedEvent(type, object, STRIPE_FAKE.credentials.webhook_secret);
      return stack.request('POST', `/psp/stripe/notifications/${connection.id}`, {
        rawBody: event.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      });
    };
    // Stripe completes the session unpaid: the debit is under way.
    const completed = stripe.completeSession(session.id, { async: true, method: 'sepa_debit' });
    expect((await notify('checkout.session.completed', completed)).body.outcome).toBe('ignored');
    expect((await outcome()).payment).toMatchObject({ status: 'pending' });

    const returned = stripe.failAsyncPayment(session.id, debitFailed('account_closed'));
    // Stripe delivers an event at least once; the sweeper may read the payment meanwhile.
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => notify('checkout.session.async_payment_failed', returned)),
      sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000)),
    ]);
    for (const answer of answers.slice(0, 4)) expect((answer as { status: number }).status).toBe(200);

    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({
      id: session.payment_id,
      status: 'failed',
      failure: { code: 'lost_or_stolen_card', class: 'hard' },
    });
    expect(payment.failure.message).toContain('(Stripe code account_closed)');
    expect(events).toEqual(['payment_link.payment_failed']);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 1, left: 0, outage: 0 });
    const sent = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key });
    const failed = await stack.request('GET', `/v1/events/${sent.body.data[0].id}`, { key });
    expect(failed.body.data.payment).toMatchObject({
      id: session.payment_id,
      failure: { code: 'lost_or_stolen_card', class: 'hard' },
    });

    // As after any failed payment, the link stays open and its checkout opens a new session.
    const after = await stack.request('GET', `/v1/payment-links/${link.id}`, { key });
    expect(after.body.status).toBe('open');
    await navigate(link.checkout_url);
    const next = (await storedLink(link.id)).psp_session;
    expect(next?.id).toBeDefined();
    expect(next?.id).not.toBe(session.id);
  });
});

/**
 * A SEPA Direct Debit takes days, longer than any Stripe session lasts: the payment stays pending past its session's
 * end, the sweeper finding its money under way (docs/orchestration.md#missed-notifications), until Stripe settles it.
 */
async function debitUnderWayPastItsEnd(shop: string) {
  const opened = await openedSession(psps, shop, 'stripe');
  const { stack, stripe } = psps;
  const notify = (type: string, object: FakeSession) => {
    const event = stripe.signedEvent(type, object, STRIPE_FAKE.credentials.webhook_secret);
    return stack.request('POST', `/psp/stripe/notifications/${opened.connection.id}`, {
      rawBody: event.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
    });
  };
  const completed = stripe.completeSession(opened.session.id, { async: true, method: 'sepa_debit' });
  expect((await notify('checkout.session.completed', completed)).status).toBe(200);
  const pastItsEnd = Date.parse(opened.session.expires_at) + 60_001;
  await sweepPendingPayments(new Date(pastItsEnd));
  expect((await opened.outcome()).payment).toMatchObject({ status: 'pending', failure: null });
  /** Stripe's event, told several times at once while the sweeper reads the payment a day later. */
  const settledBy = async (type: string, object: FakeSession) => {
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => notify(type, object)),
      sweepPendingPayments(new Date(pastItsEnd + 24 * 3_600_000)),
    ]);
    for (const answer of answers.slice(0, 4)) expect((answer as { status: number }).status).toBe(200);
  };
  return { ...opened, settledBy };
}

describe('a Stripe session paid by SEPA Direct Debit whose debit is still under way at its end', () => {
  it("fails with the bank's code when the bank returns it days later: one payment_failed, a decline", async () => {
    const { session, outcome, settledBy } = await debitUnderWayPastItsEnd('stripelatereturn');
    await settledBy(
      'checkout.session.async_payment_failed',
      psps.stripe.failAsyncPayment(session.id, debitFailed('insufficient_funds')),
    );
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({
      id: session.payment_id,
      status: 'failed',
      failure: { code: 'insufficient_funds', class: 'soft' },
    });
    expect(payment.failure.message).toContain('(Stripe code insufficient_funds)');
    expect(events).toEqual(['payment_link.payment_failed']);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 1, left: 0, outage: 0 });
  });

  it('pays the link when the debit is collected days later: one payment_link.paid, nothing else', async () => {
    const { key, link, session, outcome, settledBy } = await debitUnderWayPastItsEnd('stripelatecollect');
    await settledBy('checkout.session.async_payment_succeeded', psps.stripe.settleAsyncPayment(session.id));
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({ id: session.payment_id, status: 'succeeded', failure: null });
    expect(events).toEqual(['payment_link.paid']);
    expect(counts).toEqual({ opened: 1, paid: 1, failed: 0, left: 0, outage: 0 });
    const after = await psps.stack.request('GET', `/v1/payment-links/${link.id}`, { key });
    expect(after.body.status).toBe('paid');
  });
});
