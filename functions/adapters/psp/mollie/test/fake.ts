import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type RecordedPspRequest, startFakePspServer } from '../../../../../test/support/fake-psp-server.ts';
import { type ContractExchange, loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import { type FakeMollieMandates, failMolliePayment, fakeMollieMandates } from './fake-mandates.ts';
import { type FakeMollieSettlements, fakeMollieSettlements } from './fake-payouts.ts';

const MOLLIE_DOCUMENT = new URL('./contract/mollie.trimmed.json', import.meta.url);

/** What Mollie's OpenAPI document enumerates for one of its schemas (`locale`, `method`). */
export function documentEnum(schema: string): string[] {
  const document = JSON.parse(readFileSync(MOLLIE_DOCUMENT, 'utf8')) as {
    components: { schemas: Record<string, { enum: (string | null)[] }> };
  };
  return (document.components.schemas[schema]?.enum ?? []).filter((value) => value !== null);
}

/** Payment `locale` and `method`: the enums of Mollie's OpenAPI document. */
const MOLLIE_LOCALES = documentEnum('locale');
const MOLLIE_METHODS = documentEnum('method');

const minor = (value: string) => Math.round(Number(value) * 100);

/**
 * Mollie's rules for `lines` (payment-line-item): description, quantity ≥ 1, unitPrice and totalAmount in the
 * payment's currency, totalAmount = unitPrice × quantity − discountAmount, vatAmount = totalAmount × vatRate /
 * (100 + vatRate), and the totals adding up to the payment's amount.
 */
function linesProblem(lines: unknown, amount: { value: string; currency: string }): string | undefined {
  if (!Array.isArray(lines)) return 'The lines must be an array';
  let sum = 0;
  for (const line of lines as Record<string, { value: string; currency: string } & unknown>[]) {
    const l = line as unknown as {
      description?: unknown;
      quantity?: unknown;
      unitPrice?: { value: string; currency: string };
      totalAmount?: { value: string; currency: string };
      discountAmount?: { value: string; currency: string };
      vatRate?: string;
      vatAmount?: { value: string; currency: string };
    };
    if (typeof l.description !== 'string' || !l.description) return 'The line description is required';
    if (!Number.isInteger(l.quantity) || (l.quantity as number) < 1) return 'The line quantity is invalid';
    if (!l.unitPrice || !l.totalAmount) return 'The line unitPrice and totalAmount are required';
    if (l.unitPrice.currency !== amount.currency || l.totalAmount.currency !== amount.currency) {
      return 'The line currency differs from the payment currency';
    }
    const total = minor(l.unitPrice.value) * (l.quantity as number) - minor(l.discountAmount?.value ?? '0');
    if (total !== minor(l.totalAmount.value))
      return 'The line totalAmount does not match unitPrice × quantity';
    if (l.vatRate !== undefined) {
      const rate = Number(l.vatRate);
      if (!l.vatAmount || Math.round((total * rate) / (100 + rate)) !== minor(l.vatAmount.value)) {
        return 'The line vatAmount does not match totalAmount × (vatRate / (100 + vatRate))';
      }
    }
    sum += total;
  }
  if (sum !== minor(amount.value))
    return 'The sum of the line totalAmounts does not match the payment amount';
  return undefined;
}

export type FakeMolliePayment = Record<string, unknown> & {
  id: string;
  mode: 'test' | 'live';
  status: string;
  isCancelable: boolean;
  amount: { value: string; currency: string };
  amountRefunded: { value: string; currency: string };
  metadata: unknown;
};

export type FakeMollieRefund = Record<string, unknown> & { id: string; paymentId: string; status: string };

export interface FakeMollie {
  /** The SDK's `apiEndpoint`. */
  apiEndpoint: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, checked against mollie/openapi (test/contract/mollie.trimmed.json). */
  exchanges: ContractExchange[];
  /** Requests Mollie's document refuses (answered with Mollie's 422) and answers it does not allow (500s). */
  violations: string[];
  payments: Map<string, FakeMolliePayment>;
  refunds: Map<string, FakeMollieRefund>;
  /** Its settlements of what it took (test/fake-payouts.ts). */
  settlements: FakeMollieSettlements;
  /**
   * What Mollie does when the buyer pays, declines, or lets the payment run out; a card payment that fails may say
   * why (`failureReason`, one of Mollie's document's `payment-details-failure-reason-response`).
   */
  setStatus(
    id: string,
    status: 'paid' | 'failed' | 'canceled' | 'expired' | 'pending',
    failureReason?: string,
  ): FakeMolliePayment;
  setRefundStatus(id: string, status: 'refunded' | 'failed' | 'processing'): FakeMollieRefund;
  /** The webhook Mollie sends: a form body with the payment id only. */
  webhookBody(id: string): string;
  /** A payment of another Mollie account, which no key of this fake can see. */
  foreignPayment(): FakeMolliePayment;
  /** Customers, mandates and the payments on them (fake-mandates.ts). */
  mandates: FakeMollieMandates;
  /** `hang`: requests are never answered; `error`: every request is a 503. */
  outage: 'none' | 'hang' | 'error';
  stop(): Promise<void>;
}

const ZERO_DECIMAL = new Set(['JPY', 'ISK', 'KRW']);
const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const link = (href: string, type = 'application/hal+json') => ({ href, type });

/**
 * A local server speaking Mollie's v2 wire format for what the adapter uses (docs.mollie.com/reference):
 * JSON bodies, HAL responses (`_links.checkout` is the hosted checkout), errors as
 * `{ status, title, detail, _links }`, the mode taken from the API key (`test_…` / `live_…`), and
 * `Idempotency-Key` replays. It refuses what Mollie's OpenAPI document (mollie/openapi) requires and the adapter
 * might miss: amounts with other than the currency's decimals, a payment without `description` or `redirectUrl`, a
 * refund without `description`. The official `@mollie/api-client` is pointed at it with `apiEndpoint`.
 */
export async function startFakeMollie(options: { apiKeys: string[] }): Promise<FakeMollie> {
  const payments = new Map<string, FakeMolliePayment>();
  const refunds = new Map<string, FakeMollieRefund>();
  const replays = new Map<string, { status: number; body: unknown }>();
  /**
   * The mode of the key that made each payment: only keys of that mode see it, whatever `mode` says; a payment of
   * another account is seen by none.
   */
  const ownerModes = new Map<string, 'test' | 'live' | 'another account'>();
  const error = (status: number, title: string, detail: string) => ({
    status,
    body: {
      status,
      title,
      detail,
      _links: { documentation: link('https://docs.mollie.com/errors', 'text/html') },
    },
  });
  let endpoint = '';
  const settlements = fakeMollieSettlements({ payments, refunds, endpoint: () => endpoint });
  const state = { outage: 'none' as FakeMollie['outage'] };
  const mandates = fakeMollieMandates({ payments, endpoint: () => endpoint, error, link, createPayment });

  const server = await startFakePspServer(
    'application/hal+json',
    (request, url) => {
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error')
        return error(503, 'Service Unavailable', 'Mollie is down for maintenance.');
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!options.apiKeys.includes(key)) {
        return error(401, 'Unauthorized Request', 'Missing authentication, or failed to authenticate');
      }
      const mode = key.startsWith('live_') ? 'live' : 'test';
      const idempotencyKey = request.headers['idempotency-key'];
      const replayKey = typeof idempotencyKey === 'string' ? `${key} ${idempotencyKey}` : undefined;
      if (request.method === 'POST' && replayKey && replays.has(replayKey)) {
        return replays.get(replayKey) as { status: number; body: unknown };
      }
      const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
      const answer =
        settlements.answer(request.method, url) ?? route(request.method, url.pathname, body, mode);
      if (request.method === 'POST' && replayKey && answer.status < 300) replays.set(replayKey, answer);
      return mandates.losesAnswer() ? 'hang' : answer;
    },
    {
      document: loadPspContract(MOLLIE_DOCUMENT, {
        // Mollie's `entity-*` schemas describe a resource for both directions: their `required` lists are the
        // answer's (a refund's `id`, `resource`, `createdAt`); each `*-request` schema adds what a request needs.
        answerOnlyRequired: (name) => name.startsWith('entity-'),
      }),
      // Mollie's validation answer: 422 with the first problem in `detail`.
      refuse: (violations) => error(422, 'Unprocessable Entity', violations[0] as string),
    },
  );
  endpoint = `${server.url}/v2/`;

  function route(method: string, path: string, body: Record<string, unknown>, mode: 'test' | 'live') {
    const ofCustomer = mandates.route(method, path, body, mode);
    if (ofCustomer) return ofCustomer;
    const match = /^\/v2\/payments(?:\/(tr_[A-Za-z0-9]+)(?:\/refunds(?:\/(re_[A-Za-z0-9]+))?)?)?$/.exec(path);
    if (!match) return error(404, 'Not Found', 'The resource does not exist.');
    const [, paymentId, refundId] = match;
    const refundsPath = path.includes('/refunds');
    if (!paymentId && method === 'POST') return createPayment(body, mode);
    const payment = paymentId ? payments.get(paymentId) : undefined;
    // A payment made with another key's mode does not exist for this key.
    if (!payment || ownerModes.get(payment.id) !== mode) {
      return error(404, 'Not Found', `No payment exists with token ${paymentId}.`);
    }
    if (!refundsPath && method === 'GET') return { status: 200, body: payment };
    if (!refundsPath && method === 'DELETE') {
      if (!payment.isCancelable) return error(422, 'Unprocessable Entity', 'The payment cannot be canceled');
      Object.assign(payment, {
        status: 'canceled',
        isCancelable: false,
        canceledAt: new Date().toISOString(),
      });
      return { status: 200, body: payment };
    }
    if (refundsPath && !refundId && method === 'POST') return createRefund(payment, body);
    if (refundsPath && refundId && method === 'GET') {
      const refund = refunds.get(refundId);
      if (!refund || refund.paymentId !== payment.id) {
        return error(404, 'Not Found', `No refund exists with token ${refundId}.`);
      }
      return { status: 200, body: refund };
    }
    return error(405, 'Method Not Allowed', `The method ${method} is not allowed here.`);
  }

  function createPayment(body: Record<string, unknown>, mode: 'test' | 'live') {
    if (body.locale !== undefined && !MOLLIE_LOCALES.includes(String(body.locale))) {
      return error(422, 'Unprocessable Entity', 'The locale is invalid');
    }
    const methods = body.method === undefined ? [] : Array.isArray(body.method) ? body.method : [body.method];
    if (methods.some((method) => !MOLLIE_METHODS.includes(String(method)))) {
      return error(422, 'Unprocessable Entity', 'The payment method is invalid');
    }
    if (body.lines !== undefined) {
      const problem = linesProblem(body.lines, body.amount as { value: string; currency: string });
      if (problem) return error(422, 'Unprocessable Entity', problem);
    }
    const amount = body.amount as { value?: unknown; currency?: unknown } | undefined;
    // Mollie wants exactly the currency's decimals: "10.00", but "500" for JPY.
    const decimals = ZERO_DECIMAL.has(String(amount?.currency)) ? 0 : 2;
    const pattern = decimals === 0 ? /^\d+$/ : /^\d+\.\d{2}$/;
    if (typeof amount?.value !== 'string' || !pattern.test(amount.value)) {
      return error(422, 'Unprocessable Entity', 'The amount contains an invalid value');
    }
    if (typeof body.description !== 'string' || typeof body.redirectUrl !== 'string') {
      return error(422, 'Unprocessable Entity', 'The description and redirectUrl are required');
    }
    const created = new Date();
    const payment: FakeMolliePayment = {
      resource: 'payment',
      id: id('tr'),
      mode,
      createdAt: created.toISOString(),
      amount: { value: amount.value, currency: String(amount.currency) },
      amountRefunded: { value: '0.00', currency: String(amount.currency) },
      description: body.description,
      // No `method: null` until the buyer picks one: Mollie's document types it string-or-null but lists no null
      // in its enum, so the contract allows only leaving it out.
      metadata: body.metadata ?? null,
      status: 'open',
      isCancelable: true,
      expiresAt: new Date(created.getTime() + 15 * 60_000).toISOString(),
      profileId: 'pfl_QkEhN94Ba',
      sequenceType: 'oneoff',
      redirectUrl: body.redirectUrl,
      cancelUrl: body.cancelUrl ?? null,
      webhookUrl: body.webhookUrl ?? null,
      locale: body.locale ?? null,
      lines: body.lines ?? null,
      _links: {},
    };
    payment._links = {
      self: link(`${endpoint}payments/${payment.id}`),
      checkout: link(`https://www.mollie.com/checkout/select-method/${payment.id.slice(3)}`, 'text/html'),
      dashboard: link(`https://www.mollie.com/dashboard/org_12345678/payments/${payment.id}`, 'text/html'),
      documentation: link('https://docs.mollie.com/reference/create-payment', 'text/html'),
    };
    payments.set(payment.id, payment);
    ownerModes.set(payment.id, mode);
    return { status: 201, body: payment };
  }

  function createRefund(payment: FakeMolliePayment, body: Record<string, unknown>) {
    if (payment.status !== 'paid') {
      return error(422, 'Unprocessable Entity', 'The payment has not been paid, so it cannot be refunded');
    }
    // mollie/openapi specs.yaml, `refund-request`: `amount` and `description` (at most 255 characters) required.
    if (typeof body.description !== 'string' || body.description.length > 255) {
      return error(422, 'Unprocessable Entity', 'The description is invalid');
    }
    const amount = body.amount as { value: string; currency: string };
    const cents = (value: string) => Math.round(Number(value) * 100);
    const remaining = cents(payment.amount.value) - cents(payment.amountRefunded.value);
    if (amount.currency !== payment.amount.currency || cents(amount.value) > remaining) {
      return error(
        422,
        'Unprocessable Entity',
        'The amount is higher than the amount that remains refundable',
      );
    }
    payment.amountRefunded = {
      value: ((cents(payment.amountRefunded.value) + cents(amount.value)) / 100).toFixed(2),
      currency: amount.currency,
    };
    const refund: FakeMollieRefund = {
      resource: 'refund',
      id: id('re'),
      mode: payment.mode,
      amount,
      status: 'pending',
      createdAt: new Date().toISOString(),
      description: body.description,
      metadata: body.metadata ?? null,
      paymentId: payment.id,
      settlementAmount: { value: `-${amount.value}`, currency: amount.currency },
      _links: {},
    };
    refund._links = {
      self: link(`${endpoint}payments/${payment.id}/refunds/${refund.id}`),
      payment: link(`${endpoint}payments/${payment.id}`),
      documentation: link('https://docs.mollie.com/reference/create-refund', 'text/html'),
    };
    refunds.set(refund.id, refund);
    return { status: 201, body: refund };
  }

  return {
    apiEndpoint: endpoint,
    requests: server.requests,
    exchanges: server.exchanges,
    violations: server.violations,
    payments,
    refunds,
    mandates,
    settlements,
    setStatus(paymentId, status, failureReason) {
      const payment = payments.get(paymentId);
      if (!payment) throw new Error(`no payment ${paymentId}`);
      Object.assign(payment, { status, isCancelable: false });
      // Mollie gives a reason on the card method only (mollie/openapi `payment-details`, `x-method: cards`).
      if (status === 'failed' && failureReason) {
        failMolliePayment(Object.assign(payment, { method: 'creditcard' }), { failureReason });
      }
      if (status === 'paid') {
        Object.assign(payment, { paidAt: new Date().toISOString(), method: 'creditcard' });
        mandates.paid(payment);
      }
      return payment;
    },
    setRefundStatus(refundId, status) {
      const refund = refunds.get(refundId);
      if (!refund) throw new Error(`no refund ${refundId}`);
      refund.status = status;
      return refund;
    },
    webhookBody: (paymentId) => new URLSearchParams({ id: paymentId }).toString(),
    foreignPayment() {
      const made = createPayment(
        {
          amount: { value: '10.00', currency: 'EUR' },
          description: 'Theirs',
          redirectUrl: 'https://elsewhere.example',
        },
        'test',
      );
      const payment = made.body as FakeMolliePayment;
      ownerModes.set(payment.id, 'another account');
      return payment;
    },
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    stop: server.stop,
  };
}

/** The fake as the test stacks start it (test/support/psp-stack.ts), with credentials it accepts. */
export const MOLLIE_FAKE = {
  provider: 'mollie',
  credentials: { api_key: 'test_fakepspMollie7LxsDOtmnkVtjNVWXL' },
  async start() {
    const fake = await startFakeMollie({ apiKeys: [MOLLIE_FAKE.credentials.api_key] });
    return Object.assign(fake, { apiUrl: fake.apiEndpoint });
  },
} as const satisfies PspFakeDefinition;
