import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  failureOf,
  orderLink,
  sessionRequest,
  storedConnection,
} from '../../../../../test/support/psp-fixtures.ts';
import type { MandateRef } from '../../../../domain/mandates.ts';
import { type MandateCharge, type OpensMandate, PspRefusalError } from '../../../../ports/psp.ts';
import { stripeAdapter, stripeEndpoint } from '../adapter.ts';
import { declineClass } from '../declines.ts';
import { stripe as stripeDescriptor } from '../descriptor.ts';
import { type FakeStripe, startFakeStripe } from './fake.ts';
import type { FakeMethodType } from './fake-mandates.ts';

/**
 * Stripe's mandates through the official SDK against the fake Stripe (docs/subscriptions.md#stripe): the session
 * that saves the method, the method read back, renewals charged once per key, each decline class, a revoked
 * method, a lost answer sent again.
 */
const credentials = { secret_key: 'sk_test_mandates_123', webhook_secret: 'whsec_mandates_456' };
const connection = storedConnection('stripe', 'test', 'pc_stripemandates000000000000');
let fake: FakeStripe;
let psp: ReturnType<typeof stripeAdapter>;

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: credentials.secret_key });
  psp = stripeAdapter(stripeDescriptor, Stripe, credentials, connection, stripeEndpoint(fake.url));
});
afterAll(() => fake.stop());

const period = { value: '9.90', currency: 'EUR' };
const monthly = { interval: 'month', interval_count: 1, trial_days: null, cycles: null } as const;
const opens = (fields: Partial<OpensMandate> = {}): OpensMandate => ({
  subscriptionId: 'sub_stripemandates0000000000001',
  withoutCharge: false,
  periodAmount: period,
  recurring: monthly,
  ...fields,
});

/** A session that opens a mandate, paid on Stripe's page with `method`: the mandate it left. */
async function subscribe(method: FakeMethodType = 'card', mandate = opens()): Promise<MandateRef> {
  const request = { ...sessionRequest(orderLink('9.90'), connection), opensMandate: mandate };
  if (mandate.withoutCharge) request.amount = { value: '0.00', currency: 'EUR' };
  const session = await psp.createSession(request);
  fake.completeSession(session.id, { method, async: method === 'sepa_debit' });
  const status = await psp.retrieveSession(session.id);
  const opened = await psp.mandateOf(status);
  if (opened.state !== 'ready') throw new Error(`no mandate: ${JSON.stringify(opened)}`);
  return opened.mandate;
}

let attempts = 0;
const charge = (mandate: MandateRef, fields: Partial<MandateCharge> = {}): MandateCharge => {
  attempts += 1;
  return {
    mandate,
    amount: period,
    idempotencyKey: `sub_stripemandates0000000000001.2.${attempts}`,
    paymentId: `pay_stripemandates00000000000${attempts}`,
    subscriptionId: 'sub_stripemandates0000000000001',
    period: 2,
    description: 'Membership (period 2)',
    ...fields,
  };
};

describe('a Stripe Checkout Session that opens a mandate', () => {
  it('pays the first period and saves the method on a new Customer, with the terms on the page', async () => {
    const mandate = await subscribe();
    const form = fake.requests.find((request) => request.path === '/v1/checkout/sessions')?.form;
    expect(form).toMatchObject({
      mode: 'payment',
      customer_creation: 'always',
      'payment_intent_data[setup_future_usage]': 'off_session',
      'payment_intent_data[metadata][subscription_id]': 'sub_stripemandates0000000000001',
      'metadata[subscription_id]': 'sub_stripemandates0000000000001',
      'allowed_payment_method_types[0]': 'card',
      'custom_text[submit][message]': expect.stringContaining('EUR 9.90 every month until you cancel.'),
    });
    expect(mandate).toEqual({
      connection_id: connection.id,
      provider: 'stripe',
      customer: expect.stringMatching(/^cus_/),
      reference: expect.stringMatching(/^pm_/),
      method: 'card',
      display: 'Visa •••• 4242',
    });
    expect(fake.mandates.paymentMethods.get(mandate.reference)?.customer).toBe(mandate.customer);
  });

  it('sets a trial up in setup mode: nothing charged, the method saved all the same', async () => {
    const mandate = await subscribe(
      'card',
      opens({ withoutCharge: true, recurring: { ...monthly, trial_days: 14 } }),
    );
    const request = fake.requests.filter((sent) => sent.path === '/v1/checkout/sessions').at(-1);
    expect(request?.form).toMatchObject({ mode: 'setup', currency: 'eur', customer_creation: 'always' });
    expect(request?.form['custom_text[submit][message]']).toMatch(
      /^Free for 14 days, then EUR 9\.90 every month/,
    );
    expect(
      Object.keys(request?.form ?? {}).filter((name) => /^(line_items|payment_intent_data)/.test(name)),
    ).toEqual([]);
    const sessionId = [...fake.sessions.values()].at(-1)?.id as string;
    expect(await psp.retrieveSession(sessionId)).toMatchObject({
      state: 'succeeded',
      amount: { value: '0.00', currency: 'EUR' },
    });
    expect(mandate.reference).toMatch(/^pm_/);
  });

  it('offers only methods Stripe can charge again, and refuses a link with none without calling Stripe', async () => {
    const sent = fake.requests.length;
    const request = {
      ...sessionRequest(orderLink('9.90'), connection),
      paymentMethods: ['ideal' as const, 'card' as const],
      opensMandate: opens(),
    };
    await psp.createSession(request);
    expect(fake.requests.at(-1)?.form['allowed_payment_method_types[0]']).toBe('card');
    expect(fake.requests.at(-1)?.form['allowed_payment_method_types[1]']).toBeUndefined();
    await expect(psp.createSession({ ...request, paymentMethods: ['ideal'] })).rejects.toBeInstanceOf(
      PspRefusalError,
    );
    expect(fake.requests.length).toBe(sent + 1);
  });

  it('reads no mandate from a session that saved no method, or one a renewal cannot charge', async () => {
    const plain = await psp.createSession(sessionRequest(orderLink('9.90'), connection));
    fake.completeSession(plain.id);
    expect(await psp.mandateOf(await psp.retrieveSession(plain.id))).toMatchObject({ state: 'none' });
    const request = { ...sessionRequest(orderLink('9.90'), connection), opensMandate: opens() };
    const ideal = await psp.createSession(request);
    fake.completeSession(ideal.id, { method: 'ideal' });
    expect(await psp.mandateOf(await psp.retrieveSession(ideal.id))).toMatchObject({ state: 'none' });
  });
});

describe('renewals on a saved Stripe PaymentMethod', () => {
  it('charges off-session under the attempt key, for the mandate method only', async () => {
    const mandate = await subscribe();
    const renewal = charge(mandate);
    const result = await psp.chargeMandate(renewal);
    expect(result).toEqual({ state: 'succeeded', reference: expect.stringMatching(/^pi_/), amount: period });
    const sent = fake.requests.at(-1);
    expect(sent?.headers['idempotency-key']).toBe(renewal.idempotencyKey);
    expect(sent?.form).toMatchObject({
      amount: '990',
      currency: 'eur',
      customer: mandate.customer,
      payment_method: mandate.reference,
      off_session: 'true',
      confirm: 'true',
      'allowed_payment_method_types[0]': 'card',
      'metadata[payment_id]': renewal.paymentId,
      'metadata[subscription_id]': renewal.subscriptionId,
    });
    expect(fake.mandates.charges(mandate.reference).map((pi) => [pi.amount, pi.status])).toEqual([
      [990, 'succeeded'],
    ]);
  });

  it('charges once for a key sent twice, and answers the second as the first, a decline too', async () => {
    const mandate = await subscribe();
    const renewal = charge(mandate);
    const [first, second] = await Promise.all([psp.chargeMandate(renewal), psp.chargeMandate(renewal)]);
    expect(second).toEqual(first);
    fake.mandates.nextCharge('soft_decline');
    const retry = charge(mandate);
    const declined = await psp.chargeMandate(retry);
    expect(await psp.chargeMandate(retry)).toEqual(declined);
    expect(fake.mandates.charges(mandate.reference).map((pi) => pi.status)).toEqual([
      'succeeded',
      'requires_payment_method',
    ]);
  });

  it.each([
    ['soft_decline', 'soft', 'stripe:insufficient_funds', true],
    ['hard_decline', 'hard', 'stripe:lost_card', false],
    ['authentication_required', 'authentication_required', 'stripe:authentication_required', true],
  ] as const)(
    'answers a %s as a failed charge of its class, not as Stripe failing',
    async (outcome, klass, code, usable) => {
      const mandate = await subscribe();
      fake.mandates.nextCharge(outcome);
      const result = await psp.chargeMandate(charge(mandate));
      expect(result).toEqual({
        state: 'failed',
        reference: expect.stringMatching(/^pi_/),
        decline: { class: klass, code, message: expect.any(String) },
        mandateUsable: usable,
      });
      expect(result.state === 'failed' && (await psp.retrieveCharge(result.reference as string))).toEqual(
        result,
      );
    },
  );

  it('answers a charge on a method removed from the Customer as a hard decline: the mandate is gone', async () => {
    const mandate = await subscribe();
    fake.mandates.nextCharge('revoked');
    expect(await psp.chargeMandate(charge(mandate))).toMatchObject({
      state: 'failed',
      reference: null,
      decline: { class: 'hard', code: 'stripe:resource_missing' },
      mandateUsable: false,
    });
    expect(fake.mandates.charges(mandate.reference)).toEqual([]);
  });

  it('settles a SEPA Direct Debit renewal under way when asked again', async () => {
    const mandate = await subscribe('sepa_debit');
    expect(mandate).toMatchObject({ method: 'sepa_debit', display: 'SEPA Direct Debit •••• 3000' });
    const pending = await psp.chargeMandate(charge(mandate));
    expect(pending).toEqual({ state: 'pending', reference: expect.stringMatching(/^pi_/) });
    const reference = pending.reference as string;
    expect(await psp.retrieveCharge(reference)).toEqual(pending);
    fake.mandates.settleCharge(reference, 'succeeded');
    expect(await psp.retrieveCharge(reference)).toEqual({ state: 'succeeded', reference, amount: period });
    const failing = (await psp.chargeMandate(charge(mandate))).reference as string;
    fake.mandates.settleCharge(failing, 'failed');
    expect(await psp.retrieveCharge(failing)).toMatchObject({
      state: 'failed',
      decline: { class: 'soft', code: 'stripe:insufficient_funds' },
      mandateUsable: true,
    });
  });

  it('sends a charge whose answer was lost again under its key: the SDK once, then the caller', async () => {
    const mandate = await subscribe();
    fake.mandates.loseAnswers(1);
    expect(await psp.chargeMandate(charge(mandate))).toMatchObject({ state: 'succeeded' });
    const renewal = charge(mandate);
    fake.mandates.loseAnswers(2);
    expect(await failureOf(psp.chargeMandate(renewal))).toBe('unavailable');
    expect(await psp.chargeMandate(renewal)).toMatchObject({ state: 'succeeded' });
    const sent = fake.requests.filter((request) => request.path === '/v1/payment_intents');
    expect(sent.slice(-5).map((request) => request.headers['idempotency-key'])).toEqual([
      ...Array(2).fill(sent.at(-5)?.headers['idempotency-key']),
      ...Array(3).fill(renewal.idempotencyKey),
    ]);
    expect(fake.mandates.charges(mandate.reference).map((pi) => pi.status)).toEqual([
      'succeeded',
      'succeeded',
    ]);
  });

  it('refuses an amount under Stripe’s minimum charge without calling Stripe', async () => {
    const mandate = await subscribe();
    const sent = fake.requests.length;
    const small = charge(mandate, { amount: { value: '0.30', currency: 'EUR' } });
    await expect(psp.chargeMandate(small)).rejects.toBeInstanceOf(PspRefusalError);
    expect(fake.requests.length).toBe(sent);
  });

  it('throws an outage when Stripe fails, and charges nothing', async () => {
    const mandate = await subscribe();
    fake.outage = 'error';
    try {
      expect(await failureOf(psp.chargeMandate(charge(mandate)))).toBe('unavailable');
    } finally {
      fake.outage = 'none';
    }
    expect(fake.mandates.charges(mandate.reference)).toEqual([]);
  });
});

describe("a declined Stripe charge's class", () => {
  it.each([
    [{ code: 'card_declined', decline_code: 'generic_decline', advice_code: 'do_not_try_again' }, 'hard'],
    [{ code: 'card_declined', decline_code: 'do_not_honor', advice_code: 'try_again_later' }, 'soft'],
    [{ code: 'card_declined', decline_code: 'do_not_honor' }, 'soft'],
    [{ code: 'card_declined', decline_code: 'stolen_card' }, 'hard'],
    [{ code: 'expired_card' }, 'hard'],
    [{ code: 'debit_not_authorized' }, 'hard'],
    [{ code: 'card_declined', decline_code: 'a_code_stripe_adds_later' }, 'soft'],
    [{ code: 'authentication_required' }, 'authentication_required'],
  ] as const)('%o is %s: the advice first, then the decline code, then the code', (facts, klass) => {
    expect(declineClass(facts)).toBe(klass);
  });
});
