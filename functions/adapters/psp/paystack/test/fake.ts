import { createHmac, randomBytes } from 'node:crypto';
import {
  type FakePspServer,
  type RecordedPspRequest,
  startFakePspServer,
} from '../../../../../test/support/fake-psp-server.ts';
import { loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';

/** A transaction as the fake keeps it: what `GET /transaction/verify/{reference}` answers as `data`. */
export type FakeTransaction = Record<string, unknown> & {
  id: number;
  reference: string;
  status: string;
  amount: number;
  currency: string;
  domain: 'test' | 'live';
  metadata: Record<string, unknown>;
  channels?: string[];
  callback_url?: string;
  /** What `verify` answers as `fees` once it succeeded: 1.5% of the amount unless a test sets it (null: none). */
  fees?: number | null;
  email: string;
};

/** A refund as the fake keeps it. */
export interface FakeRefund {
  id: number;
  transaction: FakeTransaction;
  amount: number;
  status: 'pending' | 'processing' | 'processed' | 'failed';
  merchant_note: string;
  createdAt: string;
}

export interface FakePaystack extends Omit<FakePspServer, 'url'> {
  /** `PAYSTACK_API_URL`. */
  apiUrl: string;
  transactions: Map<string, FakeTransaction>;
  refunds: Map<number, FakeRefund>;
  /** What Paystack's page does when the buyer pays (`success`) or is declined (`failed`, with the bank's text). */
  pay(reference: string, outcome?: 'success' | 'failed'): FakeTransaction;
  /** What a refund becomes at the bank: `processed` or `failed`. */
  settleRefund(id: number, outcome: 'processed' | 'failed'): FakeRefund;
  /** `none`, or every API call answered 500 (`error`) or never (`hang`). */
  outage: 'none' | 'error' | 'hang';
  /** A webhook as Paystack sends it: the JSON body and its `x-paystack-signature`, keyed with `secretKey`. */
  signedEvent(event: string, data: object, secretKey: string): { body: string; signature: string };
  /** The webhook `data` of a refund (`refund.processed`…). */
  refundEventData(refund: FakeRefund): Record<string, unknown>;
}

const CONTRACT = new URL('./contract/paystack.trimmed.json', import.meta.url);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const REFERENCE = /^[A-Za-z0-9.=-]+$/;

const fail = (status: number, message: string) => ({ status, body: { status: false, message } });
const ok = (message: string, data: unknown) => ({ status: 200, body: { status: true, message, data } });

/**
 * A Paystack-speaking server (HTTPS, JSON, its `{status, message, data}` envelope), holding every request and
 * answer to PaystackOSS/openapi (`test/contract/`): initialize, verify, create and fetch a refund. It parses a
 * request body as JSON whatever its content type (Paystack does). Keys decide the mode (`sk_test_`, `sk_live_`).
 */
export async function startFakePaystack(options: { secretKeys: string[] }): Promise<FakePaystack> {
  const transactions = new Map<string, FakeTransaction>();
  const refunds = new Map<number, FakeRefund>();
  let ids = 4_000_000 + Math.floor(Math.random() * 1_000_000);
  const state = { outage: 'none' as FakePaystack['outage'] };

  const routes = (request: RecordedPspRequest, url: URL, key: string) => {
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    const domain = key.startsWith('sk_live_') ? 'live' : 'test';
    const verify = /^\/transaction\/verify\/([^/]+)$/.exec(url.pathname);
    const refundId = /^\/refund\/(\d+)$/.exec(url.pathname);
    if (request.method === 'POST' && url.pathname === '/transaction/initialize') {
      return initialize(body, domain);
    }
    if (request.method === 'GET' && verify) {
      const transaction = transactions.get(decodeURIComponent(verify[1] as string));
      return transaction && transaction.domain === domain
        ? ok('Verification successful', verification(transaction))
        : fail(404, 'Transaction reference not found');
    }
    if (request.method === 'POST' && url.pathname === '/refund') return refund(body, domain);
    if (request.method === 'GET' && refundId) {
      const found = refunds.get(Number(refundId[1]));
      return found && found.transaction.domain === domain
        ? ok('Refund retrieved', refundFetched(found))
        : fail(404, 'Refund not found');
    }
    return fail(404, `No route ${request.method} ${url.pathname}`);
  };

  const initialize = (body: Record<string, unknown>, domain: 'test' | 'live') => {
    const reference = String(body.reference ?? `T${++ids}`);
    if (!REFERENCE.test(reference)) return fail(400, 'Invalid transaction reference');
    if (transactions.has(reference)) return fail(400, 'Duplicate Transaction Reference');
    if (!EMAIL.test(String(body.email))) return fail(400, 'Invalid Email Address Passed');
    if (!((body.amount as number) > 0)) return fail(400, 'Invalid Amount Sent');
    const access = randomBytes(8).toString('hex');
    const now = new Date().toISOString();
    transactions.set(reference, {
      id: ++ids,
      reference,
      domain,
      status: 'abandoned',
      amount: body.amount as number,
      currency: String(body.currency ?? 'NGN'),
      metadata: (body.metadata as Record<string, unknown>) ?? {},
      email: String(body.email),
      gateway_response: 'The transaction was not completed',
      created_at: now,
      paid_at: null,
      ...(body.channels ? { channels: body.channels as string[] } : {}),
      ...(body.callback_url ? { callback_url: String(body.callback_url) } : {}),
    });
    return ok('Authorization URL created', {
      authorization_url: `https://checkout.paystack.com/${access}`,
      access_code: access,
      reference,
    });
  };

  const refund = (body: Record<string, unknown>, domain: 'test' | 'live') => {
    const transaction = [...transactions.values()].find(
      (candidate) =>
        candidate.domain === domain &&
        (candidate.reference === body.transaction || String(candidate.id) === body.transaction),
    );
    // Its document declares no body for a refused refund (only `default`): the status says it.
    if (transaction?.status !== 'success') return { status: 400, body: undefined };
    const refunded = [...refunds.values()]
      .filter((each) => each.transaction === transaction && each.status !== 'failed')
      .reduce((sum, each) => sum + each.amount, 0);
    const amount = (body.amount as number | undefined) ?? transaction.amount - refunded;
    if (amount > transaction.amount - refunded) return { status: 400, body: undefined };
    const made: FakeRefund = {
      id: ++ids,
      transaction,
      amount,
      status: 'pending',
      merchant_note: String(body.merchant_note ?? ''),
      createdAt: new Date().toISOString(),
    };
    refunds.set(made.id, made);
    return ok('Refund has been queued for processing', refundCreated(made));
  };

  const server = await startFakePspServer(
    'application/json; charset=utf-8',
    (request, url) => {
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error') return fail(500, 'An error occurred');
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!options.secretKeys.includes(key)) return fail(401, 'Invalid key');
      return routes(request, url, key);
    },
    {
      document: loadPspContract(CONTRACT),
      refuse: (violations) => fail(400, violations.join('; ')),
    },
  );

  return {
    ...server,
    apiUrl: server.url,
    transactions,
    refunds,
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    pay(reference, outcome = 'success') {
      const transaction = transactions.get(reference);
      if (!transaction) throw new Error(`No Paystack transaction ${reference}`);
      transaction.status = outcome;
      transaction.gateway_response = outcome === 'success' ? 'Approved' : 'Declined';
      transaction.paid_at = outcome === 'success' ? new Date().toISOString() : null;
      transaction.channel = 'card';
      return transaction;
    },
    settleRefund(id, outcome) {
      const found = refunds.get(id);
      if (!found) throw new Error(`No Paystack refund ${id}`);
      found.status = outcome;
      return found;
    },
    signedEvent(event, data, secretKey) {
      const body = JSON.stringify({ event, data });
      return { body, signature: createHmac('sha512', secretKey).update(body).digest('hex') };
    },
    refundEventData: (made) => ({
      id: made.id,
      status: made.status,
      transaction_reference: made.transaction.reference,
      refund_reference: null,
      amount: made.amount,
      currency: made.transaction.currency,
      domain: made.transaction.domain,
      merchant_note: made.merchant_note,
    }),
  };
}

/** `data` of `GET /transaction/verify/{reference}` (and of `charge.success`): every field its document requires. */
export function verification(transaction: FakeTransaction) {
  const paid = transaction.status === 'success';
  return {
    id: transaction.id,
    domain: transaction.domain,
    status: transaction.status,
    reference: transaction.reference,
    receipt_number: null,
    amount: transaction.amount,
    message: null,
    gateway_response: transaction.gateway_response,
    paid_at: transaction.paid_at ?? null,
    created_at: transaction.created_at,
    channel: transaction.channel ?? 'card',
    currency: transaction.currency,
    ip_address: '192.0.2.10',
    metadata: transaction.metadata,
    log: null,
    fees:
      paid && transaction.fees !== null ? (transaction.fees ?? Math.round(transaction.amount * 0.015)) : null,
    fees_split: null,
    authorization: paid
      ? {
          authorization_code: `AUTH_${transaction.id}`,
          bin: '408408',
          last4: '4081',
          exp_month: '12',
          exp_year: '2030',
          channel: 'card',
          card_type: 'visa ',
          bank: 'TEST BANK',
          country_code: 'NG',
          brand: 'visa',
          reusable: true,
          signature: `SIG_${transaction.id}`,
          account_name: null,
        }
      : {},
    customer: {
      id: 100 + transaction.id,
      first_name: null,
      last_name: null,
      email: transaction.email,
      customer_code: `CUS_${transaction.id}`,
      phone: null,
      metadata: null,
      risk_action: 'default',
      international_format_phone: null,
    },
    plan: null,
    split: {},
    order_id: null,
    paidAt: transaction.paid_at ?? null,
    createdAt: transaction.created_at,
    requested_amount: transaction.amount,
    pos_transaction_data: null,
    source: null,
    fees_breakdown: null,
    connect: null,
    transaction_date: transaction.created_at,
    plan_object: {},
    subaccount: {},
  };
}

function refundCreated(made: FakeRefund) {
  const { transaction } = made;
  return {
    transaction: {
      id: transaction.id,
      domain: transaction.domain,
      reference: transaction.reference,
      amount: transaction.amount,
      paid_at: String(transaction.paid_at),
      channel: String(transaction.channel ?? 'card'),
      currency: transaction.currency,
      authorization: { exp_month: '12', exp_year: '2030', account_name: null },
      customer: { international_format_phone: null },
      plan: {},
      subaccount: { currency: null },
      split: {},
      order_id: null,
      paidAt: String(transaction.paid_at),
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
    },
    integration: 100_001,
    deducted_amount: 0,
    channel: null,
    merchant_note: made.merchant_note,
    customer_note: `Refund for transaction ${transaction.reference}`,
    status: made.status,
    refunded_by: 'merchant@example.com',
    expected_at: made.createdAt,
    currency: transaction.currency,
    domain: transaction.domain,
    amount: made.amount,
    fully_deducted: false,
    id: made.id,
    createdAt: made.createdAt,
    updatedAt: made.createdAt,
  };
}

function refundFetched(made: FakeRefund) {
  const { transaction } = made;
  return {
    integration: 100_001,
    transaction: transaction.id,
    dispute: null,
    settlement: null,
    id: made.id,
    domain: transaction.domain,
    currency: transaction.currency,
    amount: made.amount,
    status: made.status,
    refunded_at: made.status === 'processed' ? made.createdAt : null,
    refunded_by: 'merchant@example.com',
    customer_note: `Refund for transaction ${transaction.reference}`,
    merchant_note: made.merchant_note,
    deducted_amount: made.status === 'processed' ? made.amount : 0,
    fully_deducted: made.status === 'processed' ? 1 : 0,
    createdAt: made.createdAt,
    bank_reference: null,
    transaction_reference: transaction.reference,
    reason: made.merchant_note,
    customer: {
      id: 100 + transaction.id,
      first_name: '',
      last_name: '',
      email: transaction.email,
      customer_code: `CUS_${transaction.id}`,
      phone: '',
      metadata: '',
      risk_action: 'default',
      international_format_phone: '',
    },
    refund_type: 'partial',
    transaction_amount: transaction.amount,
    initiated_by: 'api',
    refund_channel: 'card',
    session_id: null,
    collect_account_number: false,
  };
}

/** Paystack's fake for the tests that pay through it (test/support/psp-stack.ts). */
export const PAYSTACK_FAKE = {
  provider: 'paystack',
  credentials: { secret_key: 'sk_test_fake0paystack0key0000000000000000000' },
  start: () =>
    startFakePaystack({
      secretKeys: [
        'sk_test_fake0paystack0key0000000000000000000',
        'sk_live_fake0paystack0key0000000000000000000',
      ],
    }),
} as const satisfies PspFakeDefinition<FakePaystack>;
