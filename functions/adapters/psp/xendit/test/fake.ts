import { randomBytes, randomUUID } from 'node:crypto';
import {
  type FakePspServer,
  type RecordedPspRequest,
  startFakePspServer,
} from '../../../../../test/support/fake-psp-server.ts';
import { loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';

/** A payment session as the fake keeps it: what `GET /sessions/{id}` answers. */
export type FakeSession = Record<string, unknown> & {
  payment_session_id: string;
  reference_id: string;
  status: 'ACTIVE' | 'COMPLETED' | 'EXPIRED' | 'CANCELED';
  amount: number;
  currency: string;
  country: string;
  metadata: Record<string, string> | null;
  payment_request_id: string | null;
  livemode: boolean;
  /** Payment attempts its page declined (`payment.failure`): the session stays ACTIVE. */
  declined: number;
};

/** A refund as the fake keeps it: what `POST /refunds` and `GET /refunds/{id}` answer. */
export type FakeRefund = Record<string, unknown> & {
  id: string;
  payment_request_id: string;
  amount: number;
  currency: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  reference_id: string;
  metadata: Record<string, string>;
  livemode: boolean;
};

export interface FakeXendit extends Omit<FakePspServer, 'url'> {
  /** `XENDIT_API_URL`. */
  apiUrl: string;
  sessions: Map<string, FakeSession>;
  refunds: Map<string, FakeRefund>;
  /** The buyer pays on the session's page: it completes, with the payment request a refund names. */
  pay(sessionId: string): FakeSession;
  /** The buyer's payment on the page is declined: the session stays ACTIVE for another try. */
  decline(sessionId: string): FakeSession;
  /** What a pending refund becomes. */
  settleRefund(id: string, outcome: 'SUCCEEDED' | 'FAILED'): FakeRefund;
  /** `none`, or every API call answered 500 (`error`) or never (`hang`). */
  outage: 'none' | 'error' | 'hang';
  /** A `payment_session.*` notification as Xendit sends it, with `token` as its `x-callback-token`. */
  sessionEvent(
    event: 'payment_session.completed' | 'payment_session.expired',
    sessionId: string,
    token: string,
  ): XenditNotification;
  /** A `refund.*` notification as Xendit sends it. */
  refundEvent(refundId: string, token: string): XenditNotification;
}

export interface XenditNotification {
  body: string;
  headers: Record<string, string>;
}

const CONTRACT = new URL('./contract/xendit.trimmed.json', import.meta.url);
/** The country each currency's sessions must name (`INVALID_COUNTRY`), and whether it takes decimals. */
const MARKETS: Record<string, { country: string; decimals: number }> = {
  IDR: { country: 'ID', decimals: 0 },
  PHP: { country: 'PH', decimals: 2 },
  VND: { country: 'VN', decimals: 0 },
  THB: { country: 'TH', decimals: 2 },
  SGD: { country: 'SG', decimals: 2 },
  MYR: { country: 'MY', decimals: 2 },
};
const BUSINESS_ID = '661f87c614802d6c402cd82d';
const MINUTE = 60_000;

const failure = (status: number, error_code: string, message: string) => ({
  status,
  body: { error_code, message },
});
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Why Xendit refuses a session's amount, expiry or metadata (what its schema alone does not say), or undefined. */
function sessionProblem(body: Record<string, unknown>): ReturnType<typeof failure> | undefined {
  const market = MARKETS[String(body.currency)];
  if (body.session_type !== 'PAY' || body.mode !== 'PAYMENT_LINK') {
    return failure(400, 'MODE_NOT_SUPPORTED', 'Only PAY sessions in PAYMENT_LINK mode are faked');
  }
  if (!market) return failure(400, 'INVALID_CURRENCY', `Sessions take no ${String(body.currency)}`);
  if (market.country !== body.country) {
    return failure(400, 'INVALID_COUNTRY', 'country does not fit currency');
  }
  const amount = String(body.amount);
  const decimals = amount.split('.')[1]?.length ?? 0;
  if (!((body.amount as number) > 0) || decimals > market.decimals) {
    return failure(
      400,
      'INVALID_AMOUNT',
      `amount must respect the decimal places of ${String(body.currency)}`,
    );
  }
  const expires = Date.parse(String(body.expires_at ?? ''));
  if (body.expires_at !== undefined && !(expires >= Date.now() + 10 * MINUTE)) {
    return failure(400, 'INVALID_EXPIRY_DATE', 'expires_at must be at least 10 minutes ahead');
  }
  const metadata = Object.values((body.metadata as Record<string, unknown> | undefined) ?? {});
  if (metadata.length > 20 || metadata.some((value) => String(value).length > 80)) {
    return failure(400, 'INVALID_METADATA', 'metadata takes up to 20 keys, values up to 80 characters');
  }
  return undefined;
}

/**
 * A Xendit-speaking server (HTTPS, JSON, HTTP Basic with the secret key), holding every request and answer to
 * Xendit's published fragments as assembled and trimmed in `test/contract/`: payment sessions (create, read,
 * cancel) and refunds (create, read). Keys decide the mode (`xnd_development_`, `xnd_production_`). Xendit asks
 * HTTPS return URLs; the local stack's are `http`, so the fake does not.
 */
export async function startFakeXendit(options: { secretKeys: string[] }): Promise<FakeXendit> {
  const sessions = new Map<string, FakeSession>();
  const refunds = new Map<string, FakeRefund>();
  const state = { outage: 'none' as FakeXendit['outage'] };
  const document = loadPspContract(CONTRACT);

  const routes = (request: RecordedPspRequest, url: URL, livemode: boolean) => {
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    const session = /^\/sessions\/([^/]+)(\/cancel)?$/.exec(url.pathname);
    const refundId = /^\/refunds\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'POST' && url.pathname === '/sessions') return create(body, livemode);
    if (session) {
      const found = sessions.get(decodeURIComponent(session[1] as string));
      if (found?.livemode !== livemode) return failure(404, 'NOT_FOUND', 'Session not found');
      if (request.method === 'GET' && !session[2]) return { status: 200, body: sessionAnswer(found) };
      if (request.method === 'POST' && session[2]) return cancel(found);
    }
    if (request.method === 'POST' && url.pathname === '/refunds') {
      return refund(body, livemode, request.headers['idempotency-key']);
    }
    if (request.method === 'GET' && refundId) {
      const found = refunds.get(decodeURIComponent(refundId[1] as string));
      return found?.livemode === livemode
        ? { status: 200, body: refundAnswer(found) }
        : failure(404, 'DATA_NOT_FOUND', 'Refund not found');
    }
    return failure(404, 'NOT_FOUND', `No route ${request.method} ${url.pathname}`);
  };

  const create = (body: Record<string, unknown>, livemode: boolean) => {
    const problem = sessionProblem(body);
    if (problem) return problem;
    if ([...sessions.values()].some((each) => each.reference_id === body.reference_id)) {
      return failure(409, 'DUPLICATE_ERROR', 'A session with this reference_id exists');
    }
    const id = `ps-${hex(12)}`;
    const now = new Date().toISOString();
    const made: FakeSession = {
      ...body,
      payment_session_id: id,
      reference_id: String(body.reference_id),
      status: 'ACTIVE',
      amount: body.amount as number,
      currency: String(body.currency),
      country: String(body.country),
      metadata: (body.metadata as Record<string, string> | undefined) ?? null,
      payment_request_id: null,
      expires_at: String(body.expires_at ?? new Date(Date.now() + 30 * MINUTE).toISOString()),
      created: now,
      updated: now,
      livemode,
      declined: 0,
    };
    sessions.set(id, made);
    return { status: 201, body: sessionAnswer(made) };
  };

  const cancel = (session: FakeSession) => {
    if (session.status !== 'ACTIVE') {
      return failure(422, 'INVALID_SESSION_STATUS', `The session is ${session.status}`);
    }
    session.status = 'CANCELED';
    session.updated = new Date().toISOString();
    return { status: 200, body: sessionAnswer(session) };
  };

  const refund = (body: Record<string, unknown>, livemode: boolean, key: string | string[] | undefined) => {
    const again = [...refunds.values()].find((each) => key !== undefined && each.idempotencyKey === key);
    if (again) return { status: 200, body: refundAnswer(again) };
    const paid = [...sessions.values()].find(
      (each) => each.livemode === livemode && each.payment_request_id === body.payment_request_id,
    );
    if (paid?.status !== 'COMPLETED') return failure(404, 'DATA_NOT_FOUND', 'Payment request not found');
    if (body.currency !== undefined && body.currency !== paid.currency) {
      return failure(400, 'API_VALIDATION_ERROR', 'currency does not match the payment request');
    }
    const refunded = [...refunds.values()]
      .filter((each) => each.payment_request_id === paid.payment_request_id && each.status !== 'FAILED')
      .reduce((sum, each) => sum + each.amount, 0);
    const amount = (body.amount as number | undefined) ?? paid.amount - refunded;
    if (amount > paid.amount - refunded) {
      return failure(400, 'REFUND_AMOUNT_EXCEEDED', 'More than the unrefunded capture amount');
    }
    const now = new Date().toISOString();
    const made: FakeRefund = {
      id: `rfd-${randomUUID()}`,
      payment_request_id: paid.payment_request_id as string,
      amount,
      currency: paid.currency,
      status: 'PENDING',
      reason: String(body.reason),
      reference_id: String(body.reference_id ?? ''),
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
      livemode,
      idempotencyKey: key,
      created: now,
      updated: now,
    };
    refunds.set(made.id, made);
    return { status: 200, body: refundAnswer(made) };
  };

  const server = await startFakePspServer(
    'application/json',
    (request, url) => {
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error') return failure(500, 'SERVER_ERROR', 'Something unexpected happened');
      const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      const key = Buffer.from(basic, 'base64').toString('utf8').replace(/:$/, '');
      if (!options.secretKeys.includes(key)) return failure(401, 'INVALID_API_KEY', 'Invalid API key');
      return routes(request, url, key.startsWith('xnd_production_'));
    },
    { document, refuse: (violations) => failure(400, 'API_VALIDATION_ERROR', violations.join('; ')) },
  );

  const found = <T>(map: Map<string, T>, id: string, what: string): T => {
    const value = map.get(id);
    if (!value) throw new Error(`No Xendit ${what} ${id}`);
    return value;
  };
  /** A notification body, held to the fragment that describes it (`checkSchema`). */
  const notification = (schema: string, body: object, token: string): XenditNotification => {
    const wrong = document.checkSchema(schema, body, 'notification');
    if (wrong.length > 0) throw new Error(`The fake broke Xendit's document: ${wrong.join('; ')}`);
    return {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', 'x-callback-token': token, 'webhook-id': hex(12) },
    };
  };

  return {
    ...server,
    apiUrl: server.url,
    sessions,
    refunds,
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    pay(sessionId) {
      const session = found(sessions, sessionId, 'session');
      session.status = 'COMPLETED';
      session.payment_request_id = `pr-${randomUUID()}`;
      session.payment_id = `py-${randomUUID()}`;
      session.updated = new Date().toISOString();
      return session;
    },
    decline(sessionId) {
      const session = found(sessions, sessionId, 'session');
      session.declined += 1;
      return session;
    },
    settleRefund(id, outcome) {
      const made = found(refunds, id, 'refund');
      made.status = outcome;
      made.updated = new Date().toISOString();
      return made;
    },
    sessionEvent(event, sessionId, token) {
      const data = sessionAnswer(found(sessions, sessionId, 'session'));
      const body = { event, business_id: BUSINESS_ID, created: new Date().toISOString(), data };
      return notification('Payment_Session_SessionWebhook', body, token);
    },
    refundEvent(refundId, token) {
      const made = found(refunds, refundId, 'refund');
      const event = made.status === 'SUCCEEDED' ? 'refund.succeeded' : 'refund.failed';
      const body = {
        event,
        business_id: BUSINESS_ID,
        created: new Date().toISOString(),
        data: refundAnswer(made),
      };
      return notification('Payments_API_RefundWebhook', body, token);
    },
  };
}

/** A session as Xendit answers it (`StandardSessionResponsePublicSchema`). */
function sessionAnswer(session: FakeSession) {
  const host = session.livemode ? 'checkout.xendit.co' : 'checkout-staging.xendit.co';
  return {
    payment_session_id: session.payment_session_id,
    created: session.created,
    updated: session.updated,
    reference_id: session.reference_id,
    session_type: 'PAY',
    currency: session.currency,
    amount: session.amount,
    country: session.country,
    mode: 'PAYMENT_LINK',
    capture_method: 'AUTOMATIC',
    channel_properties: {},
    ...(session.allowed_payment_channels
      ? { allowed_payment_channels: session.allowed_payment_channels }
      : {}),
    expires_at: session.expires_at,
    locale: session.locale ?? 'en',
    metadata: session.metadata,
    ...(session.description ? { description: session.description } : {}),
    items: null,
    success_return_url: session.success_return_url,
    cancel_return_url: session.cancel_return_url,
    status: session.status,
    payment_link_url: `https://${host}/sessions/${session.payment_session_id}`,
    payment_token_id: null,
    payment_request_id: session.payment_request_id,
    payment_id: session.payment_id ?? null,
    business_id: BUSINESS_ID,
  };
}

/** A refund as Xendit answers it (`Payments_API_RefundSchema`). */
function refundAnswer(made: FakeRefund) {
  return {
    id: made.id,
    payment_request_id: made.payment_request_id,
    reference_id: made.reference_id,
    channel_code: 'CARDS',
    currency: made.currency,
    amount: made.amount,
    status: made.status,
    reason: made.reason,
    ...(made.status === 'FAILED' ? { failure_code: 'REFUND_FAILED' } : {}),
    metadata: made.metadata,
    created: made.created,
    updated: made.updated,
  };
}

/** Xendit's fake for the tests that pay through it (test/support/psp-stack.ts). */
export const XENDIT_FAKE = {
  provider: 'xendit',
  credentials: {
    secret_key: 'xnd_development_fake0xendit0key00000000000000000',
    callback_token: 'fake0xendit0callback0token0development0000000000',
  },
  start: () =>
    startFakeXendit({
      secretKeys: [
        'xnd_development_fake0xendit0key00000000000000000',
        'xnd_production_fake0xendit0key000000000000000000',
      ],
    }),
} as const satisfies PspFakeDefinition<FakeXendit>;
