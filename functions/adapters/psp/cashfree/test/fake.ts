import { type RecordedPspRequest, startFakePspServer } from '../../../../../test/support/fake-psp-server.ts';
import { type ContractExchange, loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import { cashfreeSignature } from '../notifications.ts';
import { CASHFREE_API_VERSION, indiaTime } from '../wire.ts';
import {
  type Answer,
  code,
  digits,
  error,
  type FakeLink,
  type FakeOrder,
  type FakeRefund,
  hasPaise,
  headerProblem,
  invalid,
  linkProblem,
  paymentWebhookBody,
} from './fake-wire.ts';

/** A webhook as Cashfree sends it: the exact raw body, and its headers. */
export interface FakeWebhook {
  body: string;
  headers: Record<string, string>;
}

export interface FakeCashfree {
  /** `CASHFREE_API_URL`: the fake's origin and Cashfree's base path `/pg`. */
  apiUrl: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, judged by cashfree/cashfree-pg's document (test/contract/). */
  exchanges: ContractExchange[];
  /** What broke the document: requests it refuses, answers it does not allow, webhooks that do not conform. */
  violations: string[];
  links: Map<string, FakeLink>;
  orders: Map<string, FakeOrder>;
  /** By `<order_id>/<refund_id>`. */
  refunds: Map<string, FakeRefund>;
  /** The buyer pays the link on Cashfree's page: an order, PAID, and the link PAID. */
  pay(linkId: string): FakeOrder;
  /** The buyer's payment is declined: a FAILED payment, and the link stays ACTIVE for another try. */
  decline(linkId: string): void;
  /** From now on Cashfree reports this amount for the link and its order (its page charged another). */
  reportAmount(linkId: string, amount: number, currency: string): void;
  /** Every API call fails with a 500, or is never answered, or is answered again. */
  outage: 'none' | 'error' | 'hang';
  settleRefund(reference: string, outcome: 'SUCCESS' | 'CANCELLED'): FakeRefund;
  /** Cashfree no longer holds the `x-idempotency-key`s it was sent (it states no retention). */
  forgetIdempotencyKeys(): void;
  /** `PAYMENT_SUCCESS_WEBHOOK` (or another payment event) about the link's last order, signed with `secret`. */
  paymentWebhook(linkId: string, options?: { type?: string; secret?: string }): FakeWebhook;
  /** `PAYMENT_LINK_EVENT`, what a link's `notify_url` is sent, signed with `secret`. */
  linkWebhook(linkId: string, secret?: string): FakeWebhook;
  /** `REFUND_STATUS_WEBHOOK` about the refund, signed with `secret`. */
  refundWebhook(reference: string, secret?: string): FakeWebhook;
  stop(): Promise<void>;
}

/**
 * A local server speaking Cashfree's Payment Gateway API (`x-api-version` 2025-01-01) for what the adapter uses:
 * Payment Links (create, fetch, cancel, their orders) and refunds of an order (create, fetch), JSON under `/pg`.
 * It checks what Cashfree checks and its document cannot say: the `x-client-id`/`x-client-secret` pair (401
 * `authentication_error`), the `x-api-version` it speaks, an `x-idempotency-key` that is a UUID, replayed with
 * `x-idempotency-replayed` (another body under the same key: 422 `idempotency_error`), a `link_id` of letters,
 * digits, `-` and `_` used once (409), at most two decimals, INR only (other currencies are enabled per
 * account), at least 1.00 INR, a ten-digit `customer_phone`, `return_url` of at most 250 characters, `payment_methods`
 * words, a refund within what remains of the order's amount.
 */
export async function startFakeCashfree(options: {
  clientId: string;
  clientSecret: string;
  /** The currencies Cashfree enabled for the account: INR alone unless it enabled others. */
  currencies?: readonly string[];
}): Promise<FakeCashfree> {
  const currencies = options.currencies ?? ['INR'];
  const contract = loadPspContract(new URL('./contract/cashfree.trimmed.json', import.meta.url), {
    formats: ['UUID', 'float64'],
  });
  const links = new Map<string, FakeLink>();
  const orders = new Map<string, FakeOrder>();
  const refunds = new Map<string, FakeRefund>();
  const replays = new Map<string, { body: string; answer: Answer }>();
  const violations: string[] = [];
  let origin = '';

  const createLink = (body: Record<string, unknown>): Answer => {
    const problem = linkProblem(body, links, currencies);
    if (problem) return problem;
    const id = body.link_id as string;
    const link: FakeLink = {
      cf_link_id: digits(7),
      link_id: id,
      link_status: 'ACTIVE',
      link_currency: body.link_currency as string,
      link_amount: body.link_amount as number,
      link_amount_paid: 0,
      link_partial_payments: false,
      link_purpose: body.link_purpose,
      link_created_at: indiaTime(new Date()),
      customer_details: body.customer_details,
      link_meta: (body.link_meta ?? {}) as Record<string, string>,
      link_url: `${origin}/links/${code()}`,
      link_expiry_time: indiaTime(new Date(Date.parse(body.link_expiry_time as string))),
      link_notes: (body.link_notes ?? {}) as Record<string, string>,
      link_auto_reminders: body.link_auto_reminders ?? false,
      link_notify: body.link_notify ?? { send_sms: false, send_email: false },
    };
    links.set(id, link);
    return { status: 200, body: link };
  };

  const createRefund = (orderId: string, body: Record<string, unknown>): Answer => {
    const order = orders.get(orderId);
    if (!order) return error(404, 'invalid_request_error', 'order_not_found', 'order does not exist');
    if (order.order_status !== 'PAID') return invalid('order_not_paid', 'order is not paid');
    const key = `${orderId}/${body.refund_id}`;
    if (refunds.has(key)) {
      return error(409, 'invalid_request_error', 'refund_already_exists', 'refund_id already exists');
    }
    const refunded = [...refunds.values()]
      .filter((refund) => refund.order_id === orderId && refund.refund_status !== 'CANCELLED')
      .reduce((sum, refund) => sum + Math.round(refund.refund_amount * 100), 0);
    const amount = body.refund_amount as number;
    if (
      !hasPaise(amount) ||
      amount <= 0 ||
      Math.round(amount * 100) > Math.round(order.order_amount * 100) - refunded
    ) {
      return invalid(
        'refund_amount_invalid',
        'refund_amount should be less than or equal to the amount left',
      );
    }
    const refund: FakeRefund = {
      cf_payment_id: String(order.cf_payment_id),
      cf_refund_id: digits(8),
      order_id: orderId,
      refund_id: body.refund_id as string,
      entity: 'refund',
      refund_amount: amount,
      refund_currency: order.order_currency,
      ...(body.refund_note ? { refund_note: body.refund_note } : {}),
      refund_status: 'PENDING',
      refund_type: 'MERCHANT_INITIATED',
      refund_mode: 'STANDARD',
      status_description: 'In Progress',
      created_at: indiaTime(new Date()),
    };
    refunds.set(key, refund);
    return { status: 200, body: refund };
  };

  const route = (method: string, path: string, body: unknown, url: URL): Answer => {
    const parts = path.split('/').slice(1);
    const [collection, id, sub, subId] = parts;
    if (collection === 'links') {
      if (method === 'POST' && parts.length === 1) return createLink(body as Record<string, unknown>);
      const link = links.get(id as string);
      if (!link) return error(404, 'invalid_request_error', 'link_not_found', 'link does not exist');
      if (method === 'GET' && parts.length === 2) return { status: 200, body: link };
      if (method === 'POST' && sub === 'cancel') {
        if (link.link_status !== 'ACTIVE')
          return invalid('link_not_active', 'Only an ACTIVE link can be cancelled');
        link.link_status = 'CANCELLED';
        return { status: 200, body: link };
      }
      if (method === 'GET' && sub === 'orders') {
        const status = url.searchParams.get('status') ?? 'PAID';
        const ofLink = [...orders.values()].filter((order) => order.link_id === link.link_id);
        return {
          status: 200,
          body: ofLink.filter((order) => status === 'ALL' || order.order_status === status),
        };
      }
    }
    if (collection === 'orders' && sub === 'refunds') {
      if (method === 'POST' && parts.length === 3)
        return createRefund(id as string, body as Record<string, unknown>);
      const refund = refunds.get(`${id}/${subId}`);
      if (method === 'GET' && refund) return { status: 200, body: refund };
      if (method === 'GET')
        return error(404, 'invalid_request_error', 'refund_not_found', 'refund does not exist');
    }
    return error(
      404,
      'invalid_request_error',
      'request_invalid',
      `${method} ${path} is not served by the fake`,
    );
  };

  const server = await startFakePspServer(
    'application/json',
    (request, url) => {
      // Its link page, for a browser sent to `link_url`: no part of the API.
      if (!url.pathname.startsWith('/pg/')) {
        return {
          status: 200,
          body: undefined,
          raw: '<h1>Cashfree</h1>',
          headers: { 'content-type': 'text/html' },
        };
      }
      if (fake.outage === 'hang') return 'hang';
      if (fake.outage === 'error') return error(500, 'api_error', 'internal_error', 'Cashfree is down');
      const refused = headerProblem(request, options);
      if (refused) return refused;
      const key = request.headers['x-idempotency-key'] as string | undefined;
      const replay = key ? replays.get(key) : undefined;
      if (replay && replay.body !== request.body) {
        return error(
          422,
          'idempotency_error',
          'idempotency_error',
          'idempotency key used with another request',
        );
      }
      if (replay) return { ...replay.answer, headers: { 'x-idempotency-replayed': 'true' } };
      const body = request.body === '' ? undefined : JSON.parse(request.body);
      const answer = route(request.method, url.pathname.replace(/^\/pg/, ''), body, url);
      if (key && answer.status < 500)
        replays.set(key, { body: request.body, answer: structuredClone(answer) });
      return answer;
    },
    {
      document: contract,
      basePath: /^\/pg/,
      outside: (path) => !path.startsWith('/pg/'),
      refuse: (found) => invalid('request_invalid', found.join('; ')),
    },
  );
  origin = server.url;

  const signed = (body: string, schema: string | undefined, secret = options.clientSecret): FakeWebhook => {
    if (schema) violations.push(...contract.checkSchema(schema, JSON.parse(body), `${schema} webhook`));
    const timestamp = String(Date.now());
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-webhook-signature': cashfreeSignature(secret, timestamp, body),
        'x-webhook-timestamp': timestamp,
        'x-webhook-version': CASHFREE_API_VERSION,
        'x-webhook-attempt': '1',
      },
    };
  };
  const lastOrder = (linkId: string) => {
    const order = [...orders.values()].filter((candidate) => candidate.link_id === linkId).at(-1);
    if (!order) throw new Error(`no order of link ${linkId}`);
    return order;
  };
  const linkOf = (linkId: string) => {
    const link = links.get(linkId);
    if (!link) throw new Error(`no link ${linkId}`);
    return link;
  };
  const newOrder = (link: FakeLink, status: string): FakeOrder => {
    const order: FakeOrder = {
      cf_order_id: digits(10),
      order_id: `CFPay_${link.link_url.split('/').at(-1)}_${code().slice(0, 8)}`,
      link_id: link.link_id,
      entity: 'order',
      order_status: status,
      order_amount: link.link_amount,
      order_currency: link.link_currency,
      order_tags: { cf_link_id: link.cf_link_id, link_id: link.link_id },
      order_expiry_time: link.link_expiry_time,
      created_at: indiaTime(new Date()),
      cf_payment_id: digits(10),
      payment_status: status === 'PAID' ? 'SUCCESS' : 'FAILED',
    };
    orders.set(order.order_id, order);
    return order;
  };

  const fake: FakeCashfree = {
    apiUrl: `${server.url}/pg`,
    requests: server.requests,
    exchanges: server.exchanges,
    // The server's (requests and answers) and the webhooks' own.
    get violations() {
      return [...server.violations, ...violations];
    },
    links,
    orders,
    refunds,
    outage: 'none',
    pay(linkId) {
      const link = linkOf(linkId);
      if (link.link_status !== 'ACTIVE') throw new Error(`link ${linkId} is ${link.link_status}`);
      const order = newOrder(link, 'PAID');
      link.link_status = 'PAID';
      link.link_amount_paid = order.order_amount;
      return order;
    },
    decline(linkId) {
      const link = linkOf(linkId);
      newOrder(link, 'ACTIVE');
    },
    reportAmount(linkId, amount, currency) {
      const link = linkOf(linkId);
      Object.assign(link, { link_amount: amount, link_currency: currency });
      for (const order of orders.values()) {
        if (order.link_id === linkId)
          Object.assign(order, { order_amount: amount, order_currency: currency });
      }
    },
    settleRefund(reference, outcome) {
      const refund = refunds.get(reference);
      if (!refund) throw new Error(`no refund ${reference}`);
      Object.assign(refund, {
        refund_status: outcome,
        status_description: outcome === 'SUCCESS' ? 'Refund processed' : 'Refund cancelled by the bank',
        ...(outcome === 'SUCCESS' ? { processed_at: indiaTime(new Date()) } : {}),
      });
      return refund;
    },
    forgetIdempotencyKeys: () => replays.clear(),
    paymentWebhook(linkId, { type = 'PAYMENT_SUCCESS_WEBHOOK', secret } = {}) {
      return signed(paymentWebhookBody(lastOrder(linkId), type), 'PaymentWebhook', secret);
    },
    linkWebhook(linkId, secret) {
      const link = linkOf(linkId);
      const order = [...orders.values()].filter((candidate) => candidate.link_id === linkId).at(-1);
      const data = {
        ...link,
        ...(order
          ? {
              order: {
                order_id: order.order_id,
                order_amount: order.order_amount,
                transaction_status: order.payment_status,
              },
            }
          : {}),
      };
      // Not in the document (its webhooks are the payment's and the refund's): Cashfree's Payment Links page.
      const body = JSON.stringify({
        data,
        type: 'PAYMENT_LINK_EVENT',
        version: 1,
        event_time: indiaTime(new Date()),
      });
      return signed(body, undefined, secret);
    },
    refundWebhook(reference, secret) {
      const refund = refunds.get(reference);
      if (!refund) throw new Error(`no refund ${reference}`);
      const body = JSON.stringify({
        data: { refund },
        event_time: indiaTime(new Date()),
        type: 'REFUND_STATUS_WEBHOOK',
      });
      return signed(body, 'RefundWebhook', secret);
    },
    stop: () => server.stop(),
  };
  return fake;
}

const CREDENTIALS = {
  client_id: 'TEST10203040fakecashfree50607080',
  client_secret: 'cfsk_ma_test_fake0123456789abcdef0123456789abcdef_0a1b2c3d',
} as const;

/** The fake the tests start (psp-fakes.ts), with keys of Cashfree's sandbox. */
export const CASHFREE_FAKE = {
  provider: 'cashfree',
  credentials: CREDENTIALS,
  start: () =>
    startFakeCashfree({ clientId: CREDENTIALS.client_id, clientSecret: CREDENTIALS.client_secret }),
} as const satisfies PspFakeDefinition<FakeCashfree>;

export type { FakeLink, FakeOrder, FakeRefund } from './fake-wire.ts';
