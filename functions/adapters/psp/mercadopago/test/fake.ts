import { createHmac, randomUUID } from 'node:crypto';
import {
  type FakePspServer,
  type RecordedPspRequest,
  startFakePspServer,
} from '../../../../../test/support/fake-psp-server.ts';
import { loadPspContract, type PspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import { ERROR_BODY, refundContract } from './refund-contract.ts';

/** A preference as the fake keeps it: what `GET /checkout/preferences/{id}` answers. */
export type FakePreference = Record<string, unknown> & {
  id: string;
  items: { id?: string; title: string; quantity: number; currency_id: string; unit_price: number }[];
  external_reference: string;
  expiration_date_to: string | null;
  live_mode: boolean;
};

/** A payment as the fake keeps it: what `GET /v1/payments/{id}` answers (its document types `id` a string). */
export type FakePayment = Record<string, unknown> & {
  id: string;
  status: string;
  status_detail: string;
  external_reference: string;
  transaction_amount: number;
  transaction_amount_refunded: number;
  currency_id: string;
  live_mode: boolean;
  date_created: string;
};

export type FakeRefund = Record<string, unknown> & {
  id: number;
  payment_id: number;
  amount: number;
  status: string;
};

export interface FakeMercadoPago extends Omit<FakePspServer, 'url'> {
  /** `MERCADOPAGO_API_URL`. */
  apiUrl: string;
  preferences: Map<string, FakePreference>;
  payments: Map<string, FakePayment>;
  refunds: Map<number, FakeRefund>;
  /**
   * What the buyer does on the preference's page: a card `approved` or `rejected`, or a Pix, boleto or OXXO payment
   * generated (`pending`). Throws when the preference has ended (its page takes no payment).
   */
  pay(preferenceId: string, outcome?: 'approved' | 'rejected' | 'pending', method?: string): FakePayment;
  /** A pending payment paid (the Pix sent, the boleto paid). */
  settle(paymentId: string): FakePayment;
  settleRefund(id: number, status: 'approved' | 'rejected'): FakeRefund;
  /** `none`, or every API call answered 500 (`error`) or never (`hang`). */
  outage: 'none' | 'error' | 'hang';
  /** A webhook about a payment as Mercado Pago sends it: its body and headers, `x-signature` keyed with `secret`. */
  notification(payment: FakePayment, secret: string): { body: string; headers: Record<string, string> };
}

const PREFERENCES = new URL('./contract/preferences.trimmed.json', import.meta.url);
const PAYMENTS = new URL('./contract/payments.trimmed.json', import.meta.url);
/** Its sites by currency (the `init_point`'s path), as the document's examples spell them. */
const SITES: Record<string, string> = {
  ARS: 'mla',
  BRL: 'mlb',
  CLP: 'mlc',
  MXN: 'mlm',
  COP: 'mco',
  PEN: 'mpe',
  UYU: 'mlu',
};
const WHOLE_UNITS = new Set(['CLP', 'COP']);
const METHOD_TYPES: Record<string, string> = {
  visa: 'credit_card',
  pix: 'bank_transfer',
  bolbradesco: 'ticket',
  oxxo: 'ticket',
};

/** Mercado Pago's error body (`message`, `error`, `status`, `cause`), beside the document's `errorKey`. */
const failure = (status: number, message: string, errorKey?: string) => ({
  status,
  body: {
    message,
    error: status === 404 ? 'not_found' : 'bad_request',
    status,
    cause: [],
    ...(errorKey ? { errorKey } : {}),
  },
});
/**
 * A Mercado Pago-speaking server (HTTPS, JSON), holding every request and answer to its reference documents
 * (`test/contract/`: preferences and payments, cleaned and trimmed) and the refunds to their reference pages'
 * shape (by hand, `REFUND`): Checkout Pro preferences, payments read and searched, refunds. Each access token is
 * of one mode (`TEST-` test, else live). It keeps Mercado Pago's idempotency: a `POST` repeated with the same
 * `X-Idempotency-Key` answers what the first did, and makes nothing new.
 */
export async function startFakeMercadoPago(options: { accessTokens: string[] }): Promise<FakeMercadoPago> {
  const preferences = new Map<string, FakePreference>();
  const payments = new Map<string, FakePayment>();
  const refunds = new Map<number, FakeRefund>();
  const answered = new Map<string, { status: number; body: unknown }>();
  let ids = 1_300_000_000 + Math.floor(Math.random() * 1_000_000);
  const collector = 202_809_963;
  const state = { outage: 'none' as FakeMercadoPago['outage'] };
  const documents = {
    preferences: loadPspContract(PREFERENCES, { undeclaredErrors: ERROR_BODY }),
    payments: loadPspContract(PAYMENTS, { undeclaredErrors: ERROR_BODY }),
    refunds: refundContract(),
  };
  const documentOf = (path: string): PspContract =>
    /\/refunds/.test(path)
      ? documents.refunds
      : path.startsWith('/checkout/')
        ? documents.preferences
        : documents.payments;
  const contract: PspContract = {
    checkRequest: (exchange) => documentOf(exchange.path).checkRequest(exchange),
    checkResponse: (exchange) => documentOf(exchange.path).checkResponse(exchange),
  };

  const createPreference = (body: Record<string, unknown>, live: boolean) => {
    const items = (body.items ?? []) as FakePreference['items'];
    const currency = items[0]?.currency_id ?? '';
    const invalid =
      items.length === 0 ||
      !SITES[currency] ||
      items.some(
        (item) =>
          item.currency_id !== currency ||
          !(item.unit_price > 0) ||
          !Number.isInteger(item.quantity) ||
          item.quantity < 1 ||
          (WHOLE_UNITS.has(currency)
            ? !Number.isInteger(item.unit_price)
            : Math.round(item.unit_price * 100) !== item.unit_price * 100),
      );
    if (invalid) return failure(400, 'unit_price invalid', 'invalid_items');
    const id = `${collector}-${randomUUID()}`;
    const site = SITES[currency];
    const preference: FakePreference = {
      collector_id: collector,
      operation_type: 'regular_payment',
      items: items.map((item) => ({ picture_url: '', description: '', category_id: '', ...item })),
      payer: {
        name: '',
        surname: '',
        email: String((body.payer as { email?: string } | undefined)?.email ?? ''),
        date_created: '',
        phone: { area_code: '', number: '' },
        identification: { type: '', number: '' },
        address: { street_name: '', street_number: '', zip_code: '' },
      },
      back_urls: body.back_urls ?? { success: '', pending: '', failure: '' },
      auto_return: body.auto_return ?? 'approved',
      payment_methods: {
        excluded_payment_methods: [],
        excluded_payment_types: [],
        installments: null,
        default_payment_method_id: null,
        default_installments: null,
        ...(body.payment_methods as object),
      },
      client_id: '6295877106812064',
      marketplace: 'NONE',
      marketplace_fee: 0,
      shipments: {
        receiver_address: { zip_code: '', street_number: null, street_name: '', floor: '', apartment: '' },
      },
      notification_url: null,
      statement_descriptor: '',
      external_reference: String(body.external_reference ?? ''),
      additional_info: '',
      expires: body.expires === true,
      expiration_date_from: null,
      expiration_date_to: (body.expiration_date_to as string | undefined) ?? null,
      date_of_expiration: body.date_of_expiration ?? null,
      date_created: new Date().toISOString(),
      id,
      init_point: `https://www.mercadopago.com/${site}/checkout/start?pref_id=${id}`,
      sandbox_init_point: `https://sandbox.mercadopago.com/${site}/checkout/pay?pref_id=${id}`,
      live_mode: live,
    };
    preferences.set(id, preference);
    return { status: 200, body: answerOf(preference) };
  };

  const refund = (payment: FakePayment | undefined, body: Record<string, unknown>) => {
    if (!payment) return failure(404, 'Payment not found', '2000');
    const left = Math.round((payment.transaction_amount - payment.transaction_amount_refunded) * 100) / 100;
    const amount = (body.amount as number | undefined) ?? left;
    if (!['approved'].includes(payment.status) || amount > left)
      return failure(400, 'Invalid refund amount', '3024');
    const made: FakeRefund = {
      id: ++ids,
      payment_id: Number(payment.id),
      amount,
      metadata: {},
      source: { id: String(collector), name: 'Collector', type: 'collector' },
      date_created: new Date().toISOString(),
      unique_sequence_number: null,
      refund_mode: 'standard',
      adjustment_amount: 0,
      status: 'in_process',
      reason: null,
      amount_refunded_to_payer: amount,
    };
    refunds.set(made.id, made);
    return { status: 201, body: made };
  };

  /** One account, whose objects each of its tokens reads (a test user's production token reads its test payments). */
  const routes = (request: RecordedPspRequest, url: URL, live: boolean) => {
    const path = url.pathname.replace(/\/$/, '');
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    const preference = /^\/checkout\/preferences\/([^/]+)$/.exec(path);
    const payment = /^\/v1\/payments\/(\d+)$/.exec(path);
    const refunding = /^\/v1\/payments\/(\d+)\/refunds(?:\/(\d+))?$/.exec(path);
    if (request.method === 'POST' && path === '/checkout/preferences') return createPreference(body, live);
    if (preference) {
      const found = preferences.get(decodeURIComponent(preference[1] as string));
      if (!found) return failure(404, 'preference not found', 'invalid_id');
      if (request.method === 'PUT') Object.assign(found, body);
      return { status: 200, body: answerOf(found) };
    }
    if (request.method === 'GET' && path === '/v1/payments/search') {
      const reference = url.searchParams.get('external_reference');
      const results = [...payments.values()]
        .filter((each) => each.external_reference === reference)
        .sort((a, b) => b.date_created.localeCompare(a.date_created));
      return { status: 200, body: { paging: { total: results.length, limit: 30, offset: 0 }, results } };
    }
    if (request.method === 'GET' && payment) {
      const found = payments.get(payment[1] as string);
      return found ? { status: 200, body: found } : failure(404, 'Payment not found', '2000');
    }
    if (refunding && request.method === 'POST' && !refunding[2])
      return refund(payments.get(refunding[1] as string), body);
    if (refunding && request.method === 'GET' && refunding[2]) {
      const found = refunds.get(Number(refunding[2]));
      return found && found.payment_id === Number(refunding[1]) && payments.get(refunding[1] as string)
        ? { status: 200, body: found }
        : failure(404, 'Refund not found');
    }
    return failure(404, `No route ${request.method} ${path}`);
  };

  /** What the documents cannot say of a request: its token, its key, the search's query. */
  const refusedByHand = (request: RecordedPspRequest, url: URL): string[] => {
    const problems: string[] = [];
    const write = request.method === 'POST' || request.method === 'PUT';
    if (write && !request.headers['x-idempotency-key']) problems.push('X-Idempotency-Key is missing');
    if (url.pathname === '/v1/payments/search') {
      for (const name of ['sort', 'criteria', 'external_reference']) {
        if (!url.searchParams.get(name)) problems.push(`the query parameter ${name} is required`);
      }
    }
    return problems.map((problem) => `${request.method} ${url.pathname}: ${problem}`);
  };

  const server = await startFakePspServer(
    'application/json; charset=utf-8',
    (request, url) => {
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error') return failure(500, 'Internal server error');
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!options.accessTokens.includes(token)) return failure(401, 'invalid access token');
      const byHand = refusedByHand(request, url);
      if (byHand.length > 0) {
        server.violations.push(...byHand);
        return failure(400, byHand.join('; '));
      }
      const key = `${token} ${request.method} ${url.pathname} ${request.headers['x-idempotency-key'] ?? ''}`;
      const again = request.method === 'POST' ? answered.get(key) : undefined;
      if (again) return again;
      const answer = routes(request, url, !token.startsWith('TEST-'));
      if (request.method === 'POST' && answer.status < 300) answered.set(key, answer);
      return answer;
    },
    { document: contract, basePath: /\/$/, refuse: (violations) => failure(400, violations.join('; ')) },
  );

  const paymentOf = (preferenceId: string, outcome: 'approved' | 'rejected' | 'pending', method: string) => {
    const preference = preferences.get(preferenceId);
    if (!preference) throw new Error(`No Mercado Pago preference ${preferenceId}`);
    const ended = preference.expires && Date.parse(preference.expiration_date_to ?? '') <= Date.now();
    if (ended)
      throw new Error(`The Mercado Pago preference ${preferenceId} has ended: its page takes no payment`);
    const amount =
      preference.items.reduce((sum, item) => sum + Math.round(item.unit_price * 100) * item.quantity, 0) /
      100;
    const now = new Date().toISOString();
    const made: FakePayment = {
      id: String(++ids),
      date_created: now,
      date_approved: outcome === 'approved' ? now : '',
      date_last_updated: now,
      date_of_expiration: (preference.date_of_expiration as string | null) ?? null,
      money_release_date: now,
      operation_type: 'regular_payment',
      issuer_id: null,
      payment_method_id: method,
      payment_type_id: METHOD_TYPES[method] ?? 'credit_card',
      status: outcome,
      status_detail:
        outcome === 'approved'
          ? 'accredited'
          : outcome === 'rejected'
            ? 'cc_rejected_other_reason'
            : 'pending_waiting_transfer',
      currency_id: preference.items[0]?.currency_id ?? 'BRL',
      description: preference.items[0]?.title ?? '',
      live_mode: preference.live_mode,
      collector_id: String(collector),
      payer: {
        id: '123456789',
        email: 'buyer@example.com',
        identification: { type: 'CPF', number: '19119119100' },
        type: 'guest',
      },
      metadata: {},
      additional_info: {},
      order: {},
      external_reference: preference.external_reference,
      transaction_amount: amount,
      transaction_amount_refunded: 0,
      coupon_amount: 0,
      transaction_details: {
        net_received_amount: amount,
        total_paid_amount: amount,
        overpaid_amount: 0,
        installment_amount: amount,
      },
      captured: true,
      binary_mode: false,
      installments: 1,
      card: {},
      notification_url: null,
      processing_mode: 'aggregator',
    };
    payments.set(made.id, made);
    return made;
  };

  return {
    ...server,
    apiUrl: server.url,
    preferences,
    payments,
    refunds,
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    pay: (preferenceId, outcome = 'approved', method = outcome === 'pending' ? 'pix' : 'visa') =>
      paymentOf(preferenceId, outcome, method),
    settle(paymentId) {
      const found = payments.get(paymentId);
      if (!found) throw new Error(`No Mercado Pago payment ${paymentId}`);
      Object.assign(found, {
        status: 'approved',
        status_detail: 'accredited',
        date_approved: new Date().toISOString(),
      });
      return found;
    },
    settleRefund(id, status) {
      const found = refunds.get(id);
      if (!found) throw new Error(`No Mercado Pago refund ${id}`);
      found.status = status;
      const payment = payments.get(String(found.payment_id));
      if (payment && status === 'approved') {
        payment.transaction_amount_refunded =
          Math.round((payment.transaction_amount_refunded + found.amount) * 100) / 100;
        if (payment.transaction_amount_refunded >= payment.transaction_amount) payment.status = 'refunded';
      }
      return found;
    },
    notification(payment, secret) {
      const requestId = randomUUID();
      const ts = String(Date.now());
      const manifest = `id:${payment.id};request-id:${requestId};ts:${ts};`;
      const v1 = createHmac('sha256', secret).update(manifest).digest('hex');
      const body = JSON.stringify({
        action: 'payment.updated',
        api_version: 'v1',
        data: { id: payment.id },
        date_created: new Date().toISOString(),
        id: ++ids,
        live_mode: payment.live_mode,
        type: 'payment',
        user_id: String(collector),
      });
      return {
        body,
        headers: {
          'content-type': 'application/json',
          'x-signature': `ts=${ts},v1=${v1}`,
          'x-request-id': requestId,
        },
      };
    },
  };
}

/** A preference as Mercado Pago answers it: without the fake's own bookkeeping (its mode). */
function answerOf(preference: FakePreference) {
  const { live_mode: _, date_of_expiration: __, ...answer } = preference;
  return answer;
}

/** Mercado Pago's fake for the tests that pay through it (test/support/psp-stack.ts). */
export const MERCADOPAGO_FAKE = {
  provider: 'mercadopago',
  credentials: {
    access_token: 'TEST-1234567890123456-112908-fake0mercadopago0token0000-202809963',
    webhook_secret: 'mp-webhook-secret-test',
  },
  start: () =>
    startFakeMercadoPago({
      accessTokens: [
        'TEST-1234567890123456-112908-fake0mercadopago0token0000-202809963',
        'APP_USR-1234567890123456-112908-fake0mercadopago0token0000-202809963',
      ],
    }),
} as const satisfies PspFakeDefinition<FakeMercadoPago>;
