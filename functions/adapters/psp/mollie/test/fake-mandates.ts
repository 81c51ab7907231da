import { randomBytes } from 'node:crypto';

/**
 * The part of the Mollie fake that holds customers and mandates (docs/subscriptions.md#mollie), mounted by
 * fake.ts: `POST /v2/customers`, `GET /v2/customers/{id}/mandates[/{id}]`, and the payments that name a customer:
 * a `first` payment, which leaves a mandate once paid, and a `recurring` one, charged at once on a mandate as the
 * test set it (`nextCharge`). Everything is answered as mollie/openapi says (the fake's contract judges it).
 */

type Answer = { status: number; body: unknown };
type Mode = 'test' | 'live';
/** A payment as fake.ts holds it (`FakeMolliePayment`). */
type FakeMolliePayment = Record<string, unknown> & {
  id: string;
  mode: Mode;
  status: string;
  amount: { value: string; currency: string };
};

export type FakeMollieMandate = Record<string, unknown> & {
  id: string;
  customerId: string;
  mode: Mode;
  status: 'valid' | 'pending' | 'invalid';
  /** `creditcard`, `directdebit`, or the wallet's. */
  method: string;
  createdAt: string;
};

/** What the next recurring payment on any mandate does (the conformance suite's outcomes). */
export type FakeChargeOutcome =
  | 'soft_decline'
  | 'hard_decline'
  | 'authentication_required'
  | 'pending'
  | 'revoked';

export interface FakeMollieMandates {
  /** The mandates by id. */
  mandates: Map<string, FakeMollieMandate>;
  /** The recurring payments Mollie made on a mandate (a replayed key made none). */
  chargesOf(mandateId: string): FakeMolliePayment[];
  /** The next recurring payment on any mandate is answered so. */
  nextCharge(outcome: FakeChargeOutcome): void;
  /** The buyer pays a first payment with `method` (a bank method leaves a `directdebit` mandate). */
  payFirst(paymentId: string, method: string): void;
  /** A pending recurring payment is collected, or fails (a card's reason, a bank's `bankReasonCode`). */
  settle(paymentId: string, outcome: 'paid' | 'failed', bankReasonCode?: string): FakeMolliePayment;
  /** The buyer revoked the mandate at their bank: Mollie tells nobody, the mandate is `invalid`. */
  revokeAtBank(mandateId: string): void;
  /** The next answer is lost: Mollie does what was asked and the connection drops before its answer. */
  loseNextAnswer(): void;
}

interface Wiring {
  payments: Map<string, FakeMolliePayment>;
  endpoint: () => string;
  error: (status: number, title: string, detail: string) => Answer;
  link: (href: string, type?: string) => { href: string; type: string };
  createPayment: (body: Record<string, unknown>, mode: Mode) => Answer;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** Mandate method of a first payment's method: the bank methods leave a SEPA Direct Debit mandate. */
const MANDATE_METHOD: Record<string, FakeMollieMandate['method']> = {
  creditcard: 'creditcard',
  ideal: 'directdebit',
  bancontact: 'directdebit',
  eps: 'directdebit',
  paypal: 'paypal',
};

/** What Mollie answers a recurring payment with for each outcome, on a card and on a bank account. */
const DECLINES: Record<'soft_decline' | 'hard_decline' | 'authentication_required', [string, string]> = {
  soft_decline: ['insufficient_funds', 'AM04'],
  hard_decline: ['card_expired', 'AC04'],
  authentication_required: ['authentication_required', 'MS03'],
};
const FAILURE_MESSAGES: Record<string, string> = {
  insufficient_funds: 'The card has insufficient funds.',
  card_expired: 'The card has expired.',
  authentication_required: 'The issuer requires the cardholder to authenticate.',
};

/**
 * Fails a payment as Mollie does: a card's with `details.failureReason` and the buyer's `failureMessage`, a direct
 * debit's with its bank's SEPA reason (mollie/openapi `payment-details`).
 */
export function failMolliePayment(
  payment: FakeMolliePayment,
  reason: { failureReason?: string; bankReasonCode?: string },
): FakeMolliePayment {
  const details = reason.bankReasonCode
    ? { bankReasonCode: reason.bankReasonCode, bankReason: `SEPA reason ${reason.bankReasonCode}` }
    : {
        failureReason: reason.failureReason,
        failureMessage: FAILURE_MESSAGES[reason.failureReason ?? ''] ?? 'The payment failed.',
      };
  return Object.assign(payment, { status: 'failed', failedAt: new Date().toISOString(), details });
}

export function fakeMollieMandates(wiring: Wiring): FakeMollieMandates & {
  /** Answers the requests of this part; undefined for the rest of the fake. */
  route(method: string, path: string, body: Record<string, unknown>, mode: Mode): Answer | undefined;
  /** Called when a payment is paid: a first payment leaves its mandate. */
  paid(payment: FakeMolliePayment): void;
  /** Whether the answer just made is to be lost (`loseNextAnswer`). */
  losesAnswer(): boolean;
} {
  const { payments, error, link } = wiring;
  const customers = new Map<string, Record<string, unknown> & { id: string; mode: Mode }>();
  const mandates = new Map<string, FakeMollieMandate>();
  const outcomes: FakeChargeOutcome[] = [];
  let loseNext = false;
  const now = () => new Date().toISOString();
  const notFound = (what: string, token: string) =>
    error(404, 'Not Found', `No ${what} exists with token ${token}.`);

  function createCustomer(body: Record<string, unknown>, mode: Mode): Answer {
    const customer = {
      resource: 'customer',
      id: id('cst'),
      mode,
      name: body.name ?? null,
      email: body.email ?? null,
      locale: body.locale ?? null,
      metadata: body.metadata ?? null,
      createdAt: now(),
      _links: {},
    };
    customer._links = {
      self: link(`${wiring.endpoint()}customers/${customer.id}`),
      dashboard: link(`https://www.mollie.com/dashboard/org_12345678/customers/${customer.id}`, 'text/html'),
      documentation: link('https://docs.mollie.com/reference/create-customer', 'text/html'),
    };
    customers.set(customer.id, customer);
    return { status: 201, body: customer };
  }

  function mandateBody(mandate: FakeMollieMandate) {
    return {
      ...mandate,
      _links: {
        self: link(`${wiring.endpoint()}customers/${mandate.customerId}/mandates/${mandate.id}`),
        customer: link(`${wiring.endpoint()}customers/${mandate.customerId}`),
        documentation: link('https://docs.mollie.com/reference/get-mandate', 'text/html'),
      },
    };
  }

  function customerMandates(customerId: string, mandateId: string | undefined, mode: Mode): Answer {
    if (customers.get(customerId)?.mode !== mode) return notFound('customer', customerId);
    const own = [...mandates.values()].filter((mandate) => mandate.customerId === customerId);
    if (mandateId) {
      const mandate = own.find((candidate) => candidate.id === mandateId);
      return mandate ? { status: 200, body: mandateBody(mandate) } : notFound('mandate', mandateId);
    }
    const newestFirst = own.reverse().map(mandateBody);
    return {
      status: 200,
      body: {
        count: newestFirst.length,
        _embedded: { mandates: newestFirst },
        _links: {
          self: link(`${wiring.endpoint()}customers/${customerId}/mandates`),
          previous: null,
          next: null,
          documentation: link('https://docs.mollie.com/reference/list-mandates', 'text/html'),
        },
      },
    };
  }

  /** A payment naming a customer: as any payment, then its sequence; Mollie's checks first. */
  function customerPayment(body: Record<string, unknown>, mode: Mode): Answer {
    const customerId = String(body.customerId ?? '');
    if (body.sequenceType !== 'first' && body.sequenceType !== 'recurring') {
      return error(422, 'Unprocessable Entity', 'A payment of a customer must be first or recurring here');
    }
    // Creating a payment documents no 404: Mollie's validation answer names the customer.
    if (customers.get(customerId)?.mode !== mode) {
      return error(422, 'Unprocessable Entity', `The customer ${customerId} does not exist`);
    }
    if (body.sequenceType === 'first') return firstPayment(body, mode);
    const mandate = mandates.get(String(body.mandateId ?? ''));
    if (!mandate || mandate.customerId !== customerId || mandate.status === 'invalid') {
      return error(422, 'Unprocessable Entity', 'No suitable mandates found for customer');
    }
    const outcome = outcomes.shift();
    if (outcome === 'revoked') {
      mandate.status = 'invalid';
      return error(422, 'Unprocessable Entity', 'No suitable mandates found for customer');
    }
    const made = wiring.createPayment(body, mode);
    if (made.status !== 201) return made;
    return { status: 201, body: recurringPayment(made.body as FakeMolliePayment, mandate, outcome) };
  }

  /** Mollie takes a first payment of nothing from cards only: it sets up the mandate and charges nothing. */
  function firstPayment(body: Record<string, unknown>, mode: Mode): Answer {
    const methods = Array.isArray(body.method) ? body.method : [body.method];
    const amount = body.amount as { value?: string } | undefined;
    if (Number(amount?.value) === 0 && methods.some((method) => method !== 'creditcard')) {
      return error(422, 'Unprocessable Entity', 'The amount is lower than the minimum for this method');
    }
    const made = wiring.createPayment(body, mode);
    if (made.status === 201) {
      Object.assign(made.body as FakeMolliePayment, { sequenceType: 'first', customerId: body.customerId });
    }
    return made;
  }

  function recurringPayment(
    payment: FakeMolliePayment,
    mandate: FakeMollieMandate,
    outcome: Exclude<FakeChargeOutcome, 'revoked'> | undefined,
  ): FakeMolliePayment {
    const links = payment._links as Record<string, unknown>;
    delete links.checkout;
    delete payment.expiresAt;
    Object.assign(payment, {
      sequenceType: 'recurring',
      customerId: mandate.customerId,
      mandateId: mandate.id,
      method: mandate.method,
      isCancelable: false,
    });
    // A card is charged at once; a direct debit is collected over days (`settle`).
    if (outcome === 'pending' || (outcome === undefined && mandate.method === 'directdebit')) {
      payment.status = 'pending';
    } else if (outcome === undefined) {
      Object.assign(payment, { status: 'paid', paidAt: now() });
    } else {
      const [reason, bankReasonCode] = DECLINES[outcome];
      failMolliePayment(
        payment,
        mandate.method === 'directdebit' ? { bankReasonCode } : { failureReason: reason },
      );
    }
    return payment;
  }

  function paid(payment: FakeMolliePayment): void {
    if (payment.sequenceType !== 'first' || payment.mandateId) return;
    const method = MANDATE_METHOD[String(payment.method)] ?? 'creditcard';
    const mandate: FakeMollieMandate = {
      resource: 'mandate',
      id: id('mdt'),
      mode: payment.mode,
      status: 'valid',
      method,
      details:
        method === 'directdebit'
          ? { consumerName: 'T. Tester', consumerAccount: 'NL55INGB0000004321', consumerBic: 'INGBNL2A' }
          : method === 'creditcard'
            ? {
                cardHolder: 'T. Tester',
                cardNumber: '6787',
                cardLabel: 'Mastercard',
                cardFingerprint: 'fp1234567890',
                cardExpiryDate: '2030-12-31',
              }
            : {},
      mandateReference: null,
      signatureDate: now().slice(0, 10),
      customerId: String(payment.customerId),
      createdAt: now(),
    };
    mandates.set(mandate.id, mandate);
    payment.mandateId = mandate.id;
  }

  return {
    mandates,
    route(method, path, body, mode) {
      if (method === 'POST' && path === '/v2/customers') return createCustomer(body, mode);
      if (method === 'POST' && path === '/v2/payments' && body.customerId !== undefined) {
        return customerPayment(body, mode);
      }
      const match = /^\/v2\/customers\/(cst_[A-Za-z0-9]+)\/mandates(?:\/(mdt_[A-Za-z0-9]+))?$/.exec(path);
      if (match && method === 'GET') return customerMandates(match[1] as string, match[2], mode);
      return undefined;
    },
    paid,
    losesAnswer() {
      const lost = loseNext;
      loseNext = false;
      return lost;
    },
    chargesOf: (mandateId) =>
      [...payments.values()].filter(
        (payment) => payment.sequenceType === 'recurring' && payment.mandateId === mandateId,
      ),
    nextCharge(outcome) {
      outcomes.push(outcome);
    },
    payFirst(paymentId, method) {
      const payment = payments.get(paymentId);
      if (!payment) throw new Error(`no payment ${paymentId}`);
      Object.assign(payment, { status: 'paid', isCancelable: false, paidAt: now(), method });
      paid(payment);
    },
    settle(paymentId, outcome, bankReasonCode) {
      const payment = payments.get(paymentId);
      if (payment?.status !== 'pending') throw new Error(`no pending payment ${paymentId}`);
      const mandate = mandates.get(String(payment.mandateId));
      if (outcome === 'paid') Object.assign(payment, { status: 'paid', paidAt: now() });
      else if (mandate?.method === 'directdebit')
        failMolliePayment(payment, { bankReasonCode: bankReasonCode ?? 'AM04' });
      else failMolliePayment(payment, { failureReason: 'insufficient_funds' });
      return payment;
    },
    revokeAtBank(mandateId) {
      const mandate = mandates.get(mandateId);
      if (!mandate) throw new Error(`no mandate ${mandateId}`);
      mandate.status = 'invalid';
    },
    loseNextAnswer() {
      loseNext = true;
    },
  };
}
