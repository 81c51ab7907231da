// The fake Stripe's mandates (./fake.ts mounts them): Checkout Sessions that save the buyer's PaymentMethod on a
// Customer (payment mode with `setup_future_usage`, or setup mode for a trial), the saved objects read back through
// `expand[]`, and off-session PaymentIntents charged on them, as Stripe's API reference and
// docs/subscriptions.md#stripe describe them.

import type { FakeSession } from './fake-answers.ts';

/** What the next renewal does (`nextCharge`), in the words of the conformance suite. */
export type FakeChargeOutcome =
  | 'succeed'
  | 'soft_decline'
  | 'hard_decline'
  | 'authentication_required'
  | 'pending'
  | 'revoked';

/** The buyer's method on Stripe's page: its type decides how it is shown and whether a renewal is under way. */
export type FakeMethodType = 'card' | 'sepa_debit' | 'ideal';

export type FakePaymentIntent = Record<string, unknown> & {
  id: string;
  status: string;
  amount: number;
  currency: string;
  payment_method: string | null;
};

export type FakePaymentMethod = Record<string, unknown> & {
  id: string;
  type: string;
  customer: string | null;
};

export interface FakeStripeMandates {
  customers: Set<string>;
  paymentMethods: Map<string, FakePaymentMethod>;
  /** Every PaymentIntent: first payments of sessions and renewals alike. */
  paymentIntents: Map<string, FakePaymentIntent>;
  /** The next renewals are answered so, in this order (each new charge takes one; a replayed key none). */
  nextCharge(outcome: FakeChargeOutcome): void;
  /** The renewals charged on a saved PaymentMethod (a replayed key is not a new one), oldest first. */
  charges(paymentMethod: string): FakePaymentIntent[];
  /** A renewal under way (`processing`, a SEPA Direct Debit) ends so (`payment_intent.succeeded` or `…payment_failed`). */
  settleCharge(id: string, outcome: 'succeeded' | 'failed'): FakePaymentIntent;
  /** Stripe acts on the next `count` requests, and keeps their answers for their keys, but the answers never arrive. */
  loseAnswers(count: number): void;
  /** The buyer or the merchant removed the PaymentMethod (`POST /v1/payment_methods/{id}/detach`, the Dashboard). */
  detach(paymentMethod: string): void;
}

type Answer = { status: number; body: unknown };
const error = (status: number, fields: Record<string, unknown>): Answer => ({
  status,
  body: { error: { type: 'invalid_request_error', ...fields } },
});

/** Stripe's 400 for a key sent again with other parameters (it keeps the first request's). */
export const idempotencyError = (key: string) => ({
  error: {
    type: 'idempotency_error',
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  },
});

/** Stripe's 402 for each declining outcome (`card_error`; docs.stripe.com/declines/codes, test PaymentMethods). */
const DECLINES: Record<
  'soft_decline' | 'hard_decline' | 'authentication_required',
  Record<string, string>
> = {
  soft_decline: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    advice_code: 'try_again_later',
    message: 'Your card has insufficient funds.',
  },
  hard_decline: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card has been declined.' },
  authentication_required: {
    code: 'authentication_required',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
};

/** The form's `metadata[…]`, or `<within>[metadata][…]`, as an object. */
function metadataOf(form: Record<string, string>, within?: string): Record<string, string> {
  const name = within ? `${within}[metadata][` : 'metadata[';
  return Object.fromEntries(
    Object.entries(form).flatMap(([key, value]) =>
      key.startsWith(name) && key.endsWith(']') ? [[key.slice(name.length, -1), value]] : [],
    ),
  );
}

/** Stripe's 400 for a method that is not (or no longer) saved on the Customer charged. */
const notOnCustomer = (methodId: string | undefined) =>
  error(400, {
    code: 'resource_missing',
    param: 'payment_method',
    message: `The customer does not have a payment method with the ID ${methodId}. The payment method must be attached to the customer.`,
  });

/**
 * The fake's mandate half. `ledger` is the fake's record of what each PaymentIntent can still refund, which a
 * renewal joins as a first payment does.
 */
export function fakeMandates(deps: {
  id: (prefix: string) => string;
  nowSeconds: () => number;
  ledger: Map<string, { amount: number; currency: string; refunded: number }>;
}) {
  const { id, nowSeconds, ledger } = deps;
  const customers = new Set<string>();
  const paymentMethods = new Map<string, FakePaymentMethod>();
  const paymentIntents = new Map<string, FakePaymentIntent>();
  const setupIntents = new Map<
    string,
    Record<string, unknown> & { id: string; payment_method: string | null }
  >();
  const outcomes: FakeChargeOutcome[] = [];
  /** The PaymentIntents created by `POST /v1/payment_intents` (a session's own are not renewals). */
  const renewals = new Set<string>();
  let answersToLose = 0;

  function paymentMethod(type: FakeMethodType, customer: string | null): FakePaymentMethod {
    const method: FakePaymentMethod = {
      id: id('pm'),
      object: 'payment_method',
      type,
      customer,
      created: nowSeconds(),
      card: type === 'card' ? { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 } : null,
      sepa_debit: type === 'sepa_debit' ? { last4: '3000', country: 'NL' } : null,
      ideal: type === 'ideal' ? { bank: 'ing' } : null,
    };
    paymentMethods.set(method.id, method);
    return method;
  }

  function intent(fields: Partial<FakePaymentIntent> & Pick<FakePaymentIntent, 'amount' | 'currency'>) {
    const created: FakePaymentIntent = {
      id: id('pi'),
      object: 'payment_intent',
      amount_received: 0,
      created: nowSeconds(),
      customer: null,
      description: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: {},
      payment_method: null,
      payment_method_types: ['card'],
      status: 'requires_payment_method',
      ...fields,
    };
    paymentIntents.set(created.id, created);
    return created;
  }

  /** The PaymentIntent as its outcome leaves it; a decline's 402 embeds it, as Stripe's does. */
  function charged(pi: FakePaymentIntent, outcome: FakeChargeOutcome): Answer {
    if (outcome === 'succeed') {
      Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, latest_charge: id('ch') });
      ledger.set(pi.id, { amount: pi.amount, currency: pi.currency, refunded: 0 });
      return { status: 200, body: pi };
    }
    if (outcome === 'pending') {
      pi.status = 'processing';
      return { status: 200, body: pi };
    }
    const decline = DECLINES[outcome as keyof typeof DECLINES];
    const charge = id('ch');
    const last = { type: 'card_error', charge, ...decline };
    Object.assign(pi, { status: 'requires_payment_method', latest_charge: charge, last_payment_error: last });
    return { status: 402, body: { error: { ...last, payment_intent: pi } } };
  }

  /**
   * `POST /v1/payment_intents`, confirmed on creation off-session (the only shape the adapter sends): what Stripe
   * refuses beyond its document first (a method not on the Customer, a redirect-capable confirmation without
   * `return_url`), then the next outcome the test set.
   */
  function createIntent(form: Record<string, string>, livemode: boolean): Answer {
    const method = paymentMethods.get(form.payment_method ?? '');
    if (!form.customer || !customers.has(form.customer)) {
      return error(400, {
        code: 'resource_missing',
        param: 'customer',
        message: `No such customer: '${form.customer}'`,
      });
    }
    if (!method || method.customer !== form.customer) return notOnCustomer(form.payment_method);
    const chosen = form['allowed_payment_method_types[0]'] !== undefined;
    const noRedirects = form['automatic_payment_methods[allow_redirects]'] === 'never';
    if (form.confirm === 'true' && !chosen && !noRedirects && !form.return_url) {
      return error(400, {
        code: 'parameter_missing',
        param: 'return_url',
        message:
          'This PaymentIntent is configured to accept payment methods enabled in your Dashboard, because some of these payment methods might redirect your customer off of your page. You must provide a `return_url` when confirming.',
      });
    }
    if (form.off_session === 'true' && form.confirm !== 'true') {
      return error(400, {
        param: 'off_session',
        message: '`off_session` can only be used with `confirm=true`.',
      });
    }
    const outcome =
      form.confirm === 'true'
        ? (outcomes.shift() ?? (method.type === 'sepa_debit' ? 'pending' : 'succeed'))
        : undefined;
    if (outcome === 'revoked') {
      method.customer = null;
      return notOnCustomer(method.id);
    }
    const pi = intent({
      amount: Number(form.amount),
      currency: form.currency ?? '',
      customer: form.customer,
      description: form.description ?? null,
      livemode,
      metadata: metadataOf(form),
      payment_method: method.id,
      payment_method_types: [method.type],
    });
    renewals.add(pi.id);
    return outcome ? charged(pi, outcome) : { status: 200, body: pi };
  }

  const api: FakeStripeMandates = {
    customers,
    paymentMethods,
    paymentIntents,
    nextCharge: (outcome) => outcomes.push(outcome),
    loseAnswers: (count) => {
      answersToLose = count;
    },
    charges: (method) =>
      [...renewals].flatMap((piId) => {
        const pi = paymentIntents.get(piId);
        return pi?.payment_method === method ? [pi] : [];
      }),
    settleCharge(piId, outcome) {
      const pi = paymentIntents.get(piId);
      if (pi?.status !== 'processing') throw new Error(`no PaymentIntent ${piId} under way`);
      if (outcome === 'succeeded') return charged(pi, 'succeed').body as FakePaymentIntent;
      const last = {
        type: 'card_error',
        code: 'insufficient_funds',
        message: 'The account has insufficient funds.',
      };
      return Object.assign(pi, { status: 'requires_payment_method', last_payment_error: last });
    },
    detach(methodId) {
      const method = paymentMethods.get(methodId);
      if (!method) throw new Error(`no PaymentMethod ${methodId}`);
      method.customer = null;
    },
  };

  return {
    api,
    /** Whether the answer being sent is one to lose (`loseAnswers`). */
    answerLost(): boolean {
      if (answersToLose === 0) return false;
      answersToLose -= 1;
      return true;
    },
    /** What Stripe refuses of a session that sets a mandate up, beyond its document. */
    sessionProblem(form: Record<string, string>): unknown {
      if (form.mode !== 'setup') return undefined;
      if (!form.currency) {
        return error(400, {
          code: 'parameter_missing',
          param: 'currency',
          message: 'Missing required param: currency.',
        }).body;
      }
      if (form['line_items[0][quantity]'] !== undefined) {
        return error(400, { param: 'line_items', message: 'You cannot pass `line_items` in `setup` mode.' })
          .body;
      }
      return undefined;
    },
    /** A new session's mandate fields: its Customer (given or to create), and in setup mode no amount. */
    session(session: FakeSession, form: Record<string, string>): FakeSession {
      const setup = form.mode === 'setup';
      return Object.assign(session, {
        customer: form.customer ?? null,
        customer_creation: form.customer_creation ?? null,
        setup_intent: null,
        ...(setup ? { currency: form.currency, amount_subtotal: null, amount_total: null } : {}),
      });
    },
    /**
     * The buyer paid (or, in setup mode, set the method up): with a Customer to save it on, the method is saved
     * there; the session's PaymentIntent (or SetupIntent) names it.
     */
    complete(session: FakeSession, form: Record<string, string>, type: FakeMethodType = 'card'): void {
      const saves =
        form.mode === 'setup' || form['payment_intent_data[setup_future_usage]'] === 'off_session';
      let customer = (session.customer as string | null) ?? null;
      if (!customer && form.customer_creation === 'always') {
        customer = id('cus');
        customers.add(customer);
      }
      const method = paymentMethod(type, saves ? customer : null);
      const livemode = session.livemode;
      if (form.mode === 'setup') {
        const setupIntent = {
          id: id('seti'),
          object: 'setup_intent',
          status: 'succeeded',
          usage: 'off_session',
          customer,
          livemode,
          payment_method: method.id,
        };
        setupIntents.set(setupIntent.id, setupIntent);
        Object.assign(session, {
          customer,
          payment_status: 'no_payment_required',
          payment_intent: null,
          setup_intent: setupIntent.id,
        });
        return;
      }
      intent({
        amount: Number(session.amount_total),
        currency: String(session.currency),
        customer,
        livemode,
        id: session.payment_intent as string,
        metadata: metadataOf(form, 'payment_intent_data'),
        payment_method: method.id,
        payment_method_types: [type],
        status: session.payment_status === 'paid' ? 'succeeded' : 'processing',
        amount_received: session.payment_status === 'paid' ? Number(session.amount_total) : 0,
      });
      session.customer = customer;
    },
    /** The session with the objects `expand[]` names embedded, as Stripe answers `GET …?expand[0]=…`. */
    expanded(session: FakeSession, query: URLSearchParams): FakeSession {
      const expand = [...query.entries()].flatMap(([name, value]) =>
        /^expand\[\d*\]$/.test(name) ? [value] : [],
      );
      const embed = (
        field: 'payment_intent' | 'setup_intent',
        store: Map<string, Record<string, unknown>>,
      ) => {
        const ref = session[field];
        if (typeof ref !== 'string' || !expand.some((path) => path.split('.')[0] === field)) return ref;
        const object = store.get(ref);
        if (!object) return ref;
        const method = object.payment_method as string | null;
        return expand.includes(`${field}.payment_method`) && method
          ? { ...object, payment_method: paymentMethods.get(method) ?? method }
          : object;
      };
      return {
        ...session,
        payment_intent: embed('payment_intent', paymentIntents),
        setup_intent: embed('setup_intent', setupIntents),
      };
    },
    /** The PaymentIntents' paths: an answer, or undefined for a path of another part of the fake. */
    route(method: string, path: string, form: Record<string, string>, livemode: boolean): Answer | undefined {
      if (path === '/v1/payment_intents' && method === 'POST') return createIntent(form, livemode);
      const match = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
      if (!match || method !== 'GET') return undefined;
      const pi = paymentIntents.get(match[1] as string);
      return pi
        ? { status: 200, body: pi }
        : error(404, {
            code: 'resource_missing',
            param: 'intent',
            message: `No such payment_intent: '${match[1]}'`,
          });
    },
  };
}
