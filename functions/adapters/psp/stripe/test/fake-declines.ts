// The fake Stripe's declined attempts (./fake.ts mounts them): a buyer's card declined on the Checkout Session's
// page, which Stripe keeps on the session's PaymentIntent as its `last_payment_error` while the page stays open for
// another try, and the session's own expiry at its `expires_at`.

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
