import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { usePspAdapters } from '../../../../../test/support/psp-adapters.ts';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { classified } from '../../../../domain/payment-failure.ts';
import { STRIPE_DECLINES } from '../declines.ts';
import { STRIPE_FAKE } from './fake.ts';
import { cardDeclined, debitFailed, type FakeLastPaymentError } from './fake-declines.ts';

const { connections, fakes, psps } = usePspAdapters('declines', { stripe: STRIPE_FAKE });

/** The codes Stripe documents for a declined payment, each list with its source (./contract/SOURCE.md). */
const DOCUMENTED = JSON.parse(
  readFileSync(new URL('./contract/decline-codes.json', import.meta.url), 'utf8'),
) as Record<'decline_code' | 'code' | 'bank_debit_code', string[]>;

/** Stripe's error for `code`: an issuer's decline for a decline code, else an error of that code alone. */
const errorOf = (code: string): FakeLastPaymentError =>
  DOCUMENTED.decline_code.includes(code)
    ? cardDeclined(code)
    : {
        type: code === 'payment_intent_authentication_failure' ? 'invalid_request_error' : 'card_error',
        code,
        message: 'Your payment was declined.',
      };

/** A session whose buyer's attempt Stripe declined with `error`, then left to expire, as the adapter reads it. */
async function expiredAfter(error: FakeLastPaymentError | null) {
  const session = await psps.stripe.createSession(sessionRequest(orderLink('5.00'), connections.stripe));
  if (error) fakes.stripe.declines.attempt(session.id, error);
  fakes.stripe.declines.expire(session.id);
  return psps.stripe.retrieveSession(session.id);
}

describe("Stripe's declines at checkout (docs/orchestration.md#decline-codes)", () => {
  it('maps every card decline code Stripe documents, and only codes Stripe documents', () => {
    const documented = new Set(Object.values(DOCUMENTED).flat());
    expect(Object.keys(STRIPE_DECLINES).filter((code) => !documented.has(code))).toEqual([]);
    expect(DOCUMENTED.decline_code.filter((code) => !Object.hasOwn(STRIPE_DECLINES, code))).toEqual([]);
  });

  it("reads a session that expired after a declined attempt as failed with our code, keeping Stripe's", async () => {
    for (const [theirs, ours] of Object.entries(STRIPE_DECLINES)) {
      const status = await expiredAfter(errorOf(theirs));
      expect(status.state, theirs).toBe('failed');
      expect(status.failure, theirs).toEqual({
        code: ours,
        message: `The Stripe Checkout Session expired after Stripe declined the buyer's payment. (Stripe code ${theirs})`,
      });
    }
    expect(fakes.stripe.violations).toEqual([]);
  });

  it('reads the issuer reason over the error code, and a code the table lacks as processing_error', async () => {
    const { failure } = await expiredAfter(cardDeclined('lost_card', 'do_not_try_again'));
    expect(failure && classified(failure)).toMatchObject({ code: 'lost_or_stolen_card', class: 'hard' });
    const unknown = await expiredAfter(cardDeclined('a_code_stripe_adds_later'));
    expect(unknown.failure?.code).toBe('processing_error');
  });

  it("reads the issuer's advice not to try the card again as do_not_retry, which recovery never re-routes", async () => {
    // Stripe gives the issuer's "do not try again" (Visa category 1, Mastercard advice 03 and 21) as `advice_code`
    // beside a generic decline code; another attempt with that card, at any PSP, may cost a network fee.
    for (const reason of ['generic_decline', 'do_not_honor', 'insufficient_funds']) {
      const { failure } = await expiredAfter(cardDeclined(reason, 'do_not_try_again'));
      expect(failure && classified(failure), reason).toMatchObject({ code: 'do_not_retry', class: 'hard' });
      expect(failure?.message, reason).toContain(`(Stripe code ${reason}, advice do_not_try_again)`);
    }
    // Advice to try later changes nothing.
    const later = await expiredAfter(cardDeclined('generic_decline', 'try_again_later'));
    expect(later.failure?.code).toBe('do_not_honor');
  });

  it('classes the issuer, the network or Stripe failing as an outage, and a card no PSP can charge as hard', async () => {
    const classOf = async (error: FakeLastPaymentError) => {
      const { failure } = await expiredAfter(error);
      return failure && classified(failure);
    };
    for (const code of ['issuer_not_available', 'reenter_transaction']) {
      expect(await classOf(cardDeclined(code)), code).toMatchObject({
        code: 'psp_unavailable',
        class: 'outage',
      });
    }
    expect(await classOf({ type: 'card_error', code: 'processing_error' })).toMatchObject({
      code: 'psp_unavailable',
      class: 'outage',
    });
    expect(await classOf(cardDeclined('insufficient_funds'))).toMatchObject({
      code: 'insufficient_funds',
      class: 'soft',
    });
    expect(await classOf(cardDeclined('stolen_card'))).toMatchObject({
      code: 'lost_or_stolen_card',
      class: 'hard',
    });
    expect(await classOf({ type: 'card_error', code: 'expired_card' })).toMatchObject({
      code: 'expired_card',
      class: 'hard',
    });
  });

  it('keeps a session that expired without an attempt expired, and one still open after a decline pending', async () => {
    expect(await expiredAfter(null)).toMatchObject({
      state: 'expired',
      failure: { code: 'expired', message: 'The Stripe Checkout Session expired.' },
    });
    const open = await psps.stripe.createSession(sessionRequest(orderLink('5.00'), connections.stripe));
    fakes.stripe.declines.attempt(open.id, cardDeclined('insufficient_funds'));
    expect(await psps.stripe.retrieveSession(open.id)).toMatchObject({ state: 'pending', failure: null });
    fakes.stripe.completeSession(open.id);
    const paid = await psps.stripe.retrieveSession(open.id);
    expect(paid).toMatchObject({ state: 'succeeded', failure: null });
    expect(paid.paymentReference).toBe(fakes.stripe.sessions.get(open.id)?.payment_intent);
  });

  it('reads the decline in the same call as the session: one GET, its PaymentIntent expanded', async () => {
    const session = await psps.stripe.createSession(sessionRequest(orderLink('5.00'), connections.stripe));
    fakes.stripe.declines.attempt(session.id, cardDeclined('insufficient_funds'));
    fakes.stripe.declines.expire(session.id);
    const before = fakes.stripe.requests.length;
    expect((await psps.stripe.retrieveSession(session.id)).failure?.code).toBe('insufficient_funds');
    const sent = fakes.stripe.requests.slice(before);
    expect(sent.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `GET /v1/checkout/sessions/${session.id}`,
    ]);
    expect(fakes.stripe.violations).toEqual([]);
  });

  it('documents its table, code by code', () => {
    const docs = readFileSync('docs/orchestration.md', 'utf8');
    const section = docs.slice(docs.indexOf('### Decline codes'), docs.indexOf('### A success before'));
    for (const [theirs, ours] of Object.entries(STRIPE_DECLINES)) {
      expect(section, theirs).toContain(`\`${theirs}\` → \`${ours}\``);
    }
  });
});

/** A session the buyer completed by SEPA Direct Debit (Stripe completes it `unpaid`), as the adapter reads it. */
async function paidByDebit() {
  const session = await psps.stripe.createSession(sessionRequest(orderLink('5.00'), connections.stripe));
  fakes.stripe.completeSession(session.id, { async: true, method: 'sepa_debit' });
  return session;
}

describe("Stripe's asynchronous payments (SEPA Direct Debit) that fail after the session completed", () => {
  it("reads a debit the bank returned as failed, with the bank's code through the table", async () => {
    for (const code of DOCUMENTED.bank_debit_code) {
      const session = await paidByDebit();
      fakes.stripe.failAsyncPayment(session.id, debitFailed(code));
      const status = await psps.stripe.retrieveSession(session.id);
      expect(status.state, code).toBe('failed');
      expect(status.failure, code).toEqual({
        code: Object.hasOwn(STRIPE_DECLINES, code) ? STRIPE_DECLINES[code] : 'processing_error',
        message: `Stripe could not collect the buyer's asynchronous payment. (Stripe code ${code})`,
      });
    }
    expect(fakes.stripe.violations).toEqual([]);
  });

  it('keeps the session pending, its money under way, while the debit is, and reads it paid once collected', async () => {
    const session = await paidByDebit();
    expect(await psps.stripe.retrieveSession(session.id)).toMatchObject({
      state: 'pending',
      failure: null,
      paymentUnderWay: true,
    });
    fakes.stripe.settleAsyncPayment(session.id);
    expect(await psps.stripe.retrieveSession(session.id)).toMatchObject({
      state: 'succeeded',
      failure: null,
    });
  });

  it('classes a returned debit as the table does: a closed, missing or frozen account is hard, missing funds soft', async () => {
    const classOf = async (code: string) => {
      const session = await paidByDebit();
      fakes.stripe.failAsyncPayment(session.id, debitFailed(code));
      const { failure } = await psps.stripe.retrieveSession(session.id);
      return failure && classified(failure);
    };
    expect(await classOf('account_closed')).toMatchObject({ code: 'lost_or_stolen_card', class: 'hard' });
    expect(await classOf('no_account')).toMatchObject({ code: 'lost_or_stolen_card', class: 'hard' });
    expect(await classOf('account_frozen')).toMatchObject({ code: 'lost_or_stolen_card', class: 'hard' });
    expect(await classOf('other')).toMatchObject({ code: 'do_not_honor', class: 'soft' });
    expect(await classOf('insufficient_funds')).toMatchObject({ code: 'insufficient_funds', class: 'soft' });
  });

  it('reads a failed payment whose PaymentIntent was then canceled as failed still, with its decline', async () => {
    const session = await paidByDebit();
    fakes.stripe.failAsyncPayment(session.id, debitFailed('debit_not_authorized'));
    // The merchant cancels the PaymentIntent in Stripe's Dashboard: it keeps its `last_payment_error`.
    const intent = fakes.stripe.mandates.paymentIntents.get(
      String(fakes.stripe.sessions.get(session.id)?.payment_intent),
    );
    if (!intent) throw new Error('no PaymentIntent');
    intent.status = 'canceled';
    expect(await psps.stripe.retrieveSession(session.id)).toMatchObject({
      state: 'failed',
      failure: { code: 'do_not_honor' },
    });
  });
});
