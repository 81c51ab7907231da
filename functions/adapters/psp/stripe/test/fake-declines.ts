// The fake Stripe's declined attempts (./fake.ts mounts them): a buyer's card declined on the Checkout Session's
// page, which Stripe keeps on the session's PaymentIntent as its `last_payment_error` while the page stays open for
// another try, the session's own expiry at its `expires_at`, and how an asynchronous payment (SEPA Direct Debit)
// made on a complete session ends: collected, or returned by the bank.

import type Stripe from 'stripe';
import type { FakeSession } from './fake-answers.ts';
import type { FakePaymentIntent } from './fake-mandates.ts';

/** A declined attempt as Stripe's document shapes `last_payment_error` (`api_errors`), the fields Stripe fills. */
export type FakeLastPaymentError = Pick<
  Stripe.PaymentIntent.LastPaymentError,
  'type' | 'code' | 'decline_code' | 'advice_code' | 'message'
>;

export interface FakeStripeDeclines {
  /**
   * The buyer's attempt on the open session was declined with `error` (`cardDeclined` for an issuer's decline): the
   * session's PaymentIntent, created by the first attempt as Stripe's Checkout does, keeps it as `last_payment_error`
   * and awaits another method; the session stays open.
   */
  attempt(sessionId: string, error: FakeLastPaymentError): FakePaymentIntent;
  /** The session reached its `expires_at` unpaid: Stripe expires it and cancels its PaymentIntent, if it has one. */
  expire(sessionId: string): FakeSession;
}

/** An issuer's decline as Stripe reports it: a `card_error` with code `card_declined` and the issuer's reason. */
export const cardDeclined = (declineCode: string, adviceCode?: string): FakeLastPaymentError => ({
  type: 'card_error',
  code: 'card_declined',
  decline_code: declineCode,
  ...(adviceCode ? { advice_code: adviceCode } : {}),
  message: 'Your card was declined.',
});

/**
 * A SEPA Direct Debit the bank returned, as Stripe reports it on the PaymentIntent: a `card_error` (`api_errors` has
 * no type of its own for a bank debit) whose `code` is the bank's failure code (`account_closed`,
 * `debit_not_authorized`, `insufficient_funds` ...), without the `decline_code` Stripe documents for card issuers.
 */
export const debitFailed = (code: string): FakeLastPaymentError => ({
  type: 'card_error',
  code,
  message: "The customer's bank returned the debit.",
});

export interface FakeStripeAsyncPayments {
  /**
   * The asynchronous payment of a complete session succeeded (`checkout.session.async_payment_succeeded`): its
   * PaymentIntent succeeded, the session is `paid`.
   */
  settleAsyncPayment(sessionId: string): FakeSession;
  /**
   * The asynchronous payment of a complete session failed (`checkout.session.async_payment_failed`) with `error`
   * (`debitFailed` for a returned debit): as Stripe's "How PaymentIntents work" says of a failed payment, its
   * PaymentIntent goes back from `processing` to `requires_payment_method`, `error` its `last_payment_error`;
   * the session stays `complete` and `unpaid`.
   */
  failAsyncPayment(sessionId: string, error: FakeLastPaymentError): FakeSession;
}

/** `paymentIntents` is the fake's store of them (./fake-mandates.ts), where a complete session's PaymentIntent is. */
export function fakeAsyncPayments(deps: {
  id: (prefix: string) => string;
  sessions: Map<string, FakeSession>;
  paymentIntents: Map<string, FakePaymentIntent>;
}): FakeStripeAsyncPayments {
  const underWay = (sessionId: string) => {
    const session = deps.sessions.get(sessionId);
    const intent = deps.paymentIntents.get(String(session?.payment_intent));
    if (
      session?.status !== 'complete' ||
      session.payment_status !== 'unpaid' ||
      intent?.status !== 'processing'
    ) {
      throw new Error(`no asynchronous payment under way on Checkout Session ${sessionId}`);
    }
    return { session, intent };
  };
  return {
    settleAsyncPayment(sessionId) {
      const { session, intent } = underWay(sessionId);
      Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
      session.payment_status = 'paid';
      return session;
    },
    failAsyncPayment(sessionId, error) {
      const { session, intent } = underWay(sessionId);
      // A SEPA Direct Debit's charge is a `py_` one.
      const charge = deps.id('py');
      Object.assign(intent, {
        status: 'requires_payment_method',
        latest_charge: charge,
        last_payment_error: { ...error, ...(error.type === 'card_error' ? { charge } : {}) },
      });
      return session;
    },
  };
}

/** `paymentIntents` is the fake's store of them (./fake-mandates.ts), which `expand[]=payment_intent` reads. */
export function fakeDeclines(deps: {
  id: (prefix: string) => string;
  nowSeconds: () => number;
  sessions: Map<string, FakeSession>;
  paymentIntents: Map<string, FakePaymentIntent>;
}): FakeStripeDeclines {
  const { id, nowSeconds, sessions, paymentIntents } = deps;
  const session = (sessionId: string, status: string) => {
    const found = sessions.get(sessionId);
    if (found?.status !== status) throw new Error(`no ${status} Checkout Session ${sessionId}`);
    return found;
  };
  return {
    attempt(sessionId, error) {
      const open = session(sessionId, 'open');
      const existing = paymentIntents.get(String(open.payment_intent));
      const charge = id('ch');
      const intent: FakePaymentIntent = existing ?? {
        id: id('pi'),
        object: 'payment_intent',
        amount: Number(open.amount_total),
        amount_received: 0,
        created: nowSeconds(),
        currency: String(open.currency),
        customer: null,
        description: null,
        livemode: open.livemode,
        metadata: {},
        payment_method: null,
        payment_method_types: ['card'],
        status: 'requires_payment_method',
      };
      const declined = { ...error, ...(error.type === 'card_error' ? { charge } : {}) };
      Object.assign(intent, {
        status: 'requires_payment_method',
        latest_charge: error.type === 'card_error' ? charge : null,
        last_payment_error: declined,
      });
      paymentIntents.set(intent.id, intent);
      open.payment_intent = intent.id;
      return intent;
    },
    expire(sessionId) {
      const expired = session(sessionId, 'open');
      expired.status = 'expired';
      const intent = paymentIntents.get(String(expired.payment_intent));
      if (intent) Object.assign(intent, { status: 'canceled', canceled_at: nowSeconds() });
      return expired;
    },
  };
}
