import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import {
  type ContractExchange,
  decodeForm,
  loadPspContract,
} from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import {
  buyerAnswers,
  checkoutParamProblem,
  checkoutSession,
  contractRefusal,
  type FakeSession,
  type FakeStripeBuyer,
  invalid,
  linesTotal,
  THREE_DECIMAL,
} from './fake-answers.ts';
import {
  type FakeStripeAsyncPayments,
  type FakeStripeDeclines,
  fakeAsyncPayments,
  fakeDeclines,
} from './fake-declines.ts';
import {
  type FakeMethodType,
  type FakePaymentIntent,
  type FakeStripeMandates,
  fakeMandates,
  idempotencyError,
} from './fake-mandates.ts';
import { type FakeStripePayouts, fakeStripePayouts } from './fake-payouts.ts';

export type { FakeSession, FakeStripeBuyer } from './fake-answers.ts';

/** A request the fake received, with its form-encoded body decoded into flat `a[b][0]` keys. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: Record<string, string>;
}

export type FakeRefund = Record<string, unknown> & { id: string; status: string; payment_intent: string };

export interface FakeStripe extends FakeStripeAsyncPayments {
  url: string;
  endpoint: { host: string; port: number; protocol: 'http' };
  requests: RecordedRequest[];
  /**
   * Every request the contract judged (stripe/openapi, test/contracts/stripe.trimmed.json, requests only), with
   * the answer given, and what broke the document: requests Stripe refuses (answered 400 before the fake acts).
   */
  exchanges: ContractExchange[];
  violations: string[];
  sessions: Map<string, FakeSession>;
  /** The form each session was created from (its lines, which a session does not show unexpanded). */
  forms: Map<string, Record<string, string>>;
  refunds: Map<string, FakeRefund>;
  /** Its payouts of what it took (test/fake-payouts.ts). */
  payouts: FakeStripePayouts;
  /**
   * What Stripe does when the buyer pays: the session completes with a PaymentIntent; with an asynchronous
   * method (SEPA Direct Debit) it completes `unpaid` until `settleAsyncPayment` or `failAsyncPayment`.
   */
  completeSession(
    id: string,
    options?: { async?: boolean; buyer?: FakeStripeBuyer; method?: FakeMethodType },
  ): FakeSession;
  /** Saved PaymentMethods and the PaymentIntents charged on them (./fake-mandates.ts). */
  mandates: FakeStripeMandates;
  /** Declined attempts on a session's page, and its expiry (./fake-declines.ts). */
  declines: FakeStripeDeclines;
  /**
   * What Stripe does when a refund settles or fails; `failed` after `succeeded` is a refund the card network
   * returned, and the amount is refundable again.
   */
  settleRefund(id: string, outcome: 'succeeded' | 'failed'): FakeRefund;
  /** A refund of all that remains of a PaymentIntent made in Stripe's dashboard (no metadata of ours). */
  refundInDashboard(paymentIntent: string): FakeRefund;
  /** How long each request takes to reach the fake Stripe (its `created` times are taken after it). */
  latencyMs: number;
  /** `hang`: requests are never answered; `error`: every request is a 500 that Stripe says not to retry. */
  outage: 'none' | 'hang' | 'error';
  /**
   * Makes Stripe refuse the e-mail of new sessions as it refuses one it cannot deliver to, quoting it in its
   * message (`email_invalid`, "Invalid email address: …"), while true.
   */
  refuseEmails: boolean;
  /** How far the fake Stripe's clock is ahead of this process's, for a test that runs the service later. */
  clockAheadMs: number;
  /**
   * A webhook event as Stripe sends it: the JSON body and its `Stripe-Signature` header. `livemode` is what
   * the event says (by default the mode of the fake's first key).
   */
  signedEvent(
    type: string,
    object: FakeSession | FakeRefund | FakePaymentIntent,
    webhookSecret: string,
    options?: { livemode?: boolean },
  ): { body: string; signature: string };
  stop(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * A local server that speaks Stripe's wire format for the endpoints the adapter uses: form-encoded requests,
 * JSON responses shaped like the Checkout Session and Refund objects of Stripe's API reference, errors in
 * Stripe's `{ "error": { type, message } }` envelope, `livemode` from the key (`sk_live_`/`rk_live_`), saved
 * PaymentMethods and renewals (./fake-mandates.ts), and `Idempotency-Key` replays of POSTs. It refuses what Stripe refuses of what the adapter sends: an `expires_at`
 * less than 30 minutes or more than 24 hours after the session's `created` (whole seconds), an amount in a
 * three-decimal currency whose last digit is not 0, a refund of more than remains (`amount_too_large`) or of a
 * fully refunded payment (`charge_already_refunded`). The official SDK is pointed at it with `host`/`port`/`protocol`.
 * `secretKeys` are further keys it accepts (a rotated key).
 */
export async function startFakeStripe(options: {
  secretKey: string;
  secretKeys?: string[];
}): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, FakeSession>();
  const forms = new Map<string, Record<string, string>>();
  const refunds = new Map<string, FakeRefund>();
  const paymentIntents = new Map<string, { amount: number; currency: string; refunded: number }>();
  const replays = new Map<string, { status: number; body: unknown; raw: string }>();
  const keys = [options.secretKey, ...(options.secretKeys ?? [])];
  const state = {
    latencyMs: 0,
    clockAheadMs: 0,
    refuseEmails: false,
    outage: 'none' as FakeStripe['outage'],
  };
  const nowSeconds = () => Math.floor((Date.now() + state.clockAheadMs) / 1000);
  const mandates = fakeMandates({ id, nowSeconds, ledger: paymentIntents });
  const isLive = (key: string) => /^(sk|rk)_live_/.test(key);
  const payouts = fakeStripePayouts({ sessions, refunds, nowSeconds });

  const contract = loadPspContract(new URL('./contract/stripe.trimmed.json', import.meta.url), {
    formEncoded: true,
  });
  const exchanges: ContractExchange[] = [];
  const violations: string[] = [];

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (state.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, state.latencyMs));
    const url = new URL(request.url ?? '/', 'http://stripe.local');
    const raw = Buffer.concat(chunks).toString('utf8');
    const form = Object.fromEntries(new URLSearchParams(raw));
    requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers, form });
    if (state.outage === 'hang') return; // never answers: the caller's budget must end the call
    if (state.outage === 'error') {
      response.writeHead(500, { 'content-type': 'application/json', 'stripe-should-retry': 'false' });
      response.end(
        JSON.stringify({ error: { type: 'api_error', message: 'An error occurred with our API.' } }),
      );
      return;
    }
    const exchange = { method: request.method ?? '', path: url.pathname, body: decodeForm(raw) as unknown };
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    let judged = false;
    const idempotencyKey = request.headers['idempotency-key'];
    const replayKey =
      request.method === 'POST' && typeof idempotencyKey === 'string'
        ? `${key} ${idempotencyKey}`
        : undefined;
    const reply = (status: number, body: unknown) => {
      if (judged) exchanges.push({ ...exchange, status, response: body });
      // Stripe keeps the first answer to a key, a decline or its own failure too, but not a refusal of the request.
      if (replayKey && (status < 300 || status === 402 || status >= 500))
        replays.set(replayKey, { status, body, raw });
      if (mandates.answerLost()) return response.destroy();
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
      response.end(JSON.stringify(body));
    };
    if (!keys.includes(key)) {
      return reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    const replay = replayKey ? replays.get(replayKey) : undefined;
    if (replay && replay.raw !== raw) return reply(400, idempotencyError(String(idempotencyKey)));
    if (replay) return reply(replay.status, replay.body);
    // Stripe's OpenAPI document judges the request before the fake acts on it (paths it lacks stay the fake's 404).
    const broken = contract.checkRequest(exchange);
    judged = !broken.some((violation) => violation.endsWith('is no operation of the document'));
    if (judged && broken.length > 0) {
      violations.push(...broken.map((violation) => `${exchange.method} ${exchange.path}: ${violation}`));
      return reply(400, contractRefusal(broken[0] as string));
    }
    const livemode = isLive(key);
    const forMandates = mandates.route(request.method ?? '', url.pathname, form, livemode);
    if (forMandates) return reply(forMandates.status, forMandates.body);
    const refundMatch = /^\/v1\/refunds(?:\/(re_[0-9a-f]+))?$/.exec(url.pathname);
    if (refundMatch) {
      const [, refundId] = refundMatch;
      if (!refundId && request.method === 'POST') {
        const paymentIntent = paymentIntents.get(form.payment_intent ?? '');
        if (!paymentIntent) {
          return reply(404, {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: `No such payment_intent: '${form.payment_intent}'`,
            },
          });
        }
        const amount =
          form.amount === undefined ? paymentIntent.amount - paymentIntent.refunded : Number(form.amount);
        if (THREE_DECIMAL.has(paymentIntent.currency) && amount % 10 !== 0) {
          return reply(400, invalid('amount', 'Amounts in this currency must be a multiple of 10.'));
        }
        if (paymentIntent.refunded >= paymentIntent.amount) {
          return reply(400, {
            error: {
              type: 'invalid_request_error',
              code: 'charge_already_refunded',
              message: `Charge for payment_intent ${form.payment_intent} has already been refunded.`,
            },
          });
        }
        if (amount > paymentIntent.amount - paymentIntent.refunded) {
          return reply(400, {
            error: {
              type: 'invalid_request_error',
              code: 'amount_too_large',
              message: `Refund amount (${amount}) is greater than unrefunded amount on charge`,
            },
          });
        }
        paymentIntent.refunded += amount;
        const refund: FakeRefund = {
          id: id('re'),
          object: 'refund',
          amount,
          currency: paymentIntent.currency,
          created: nowSeconds(),
          failure_reason: null,
          metadata: Object.fromEntries(
            Object.entries(form).flatMap(([name, value]) => {
              const field = /^metadata\[(.+)\]$/.exec(name)?.[1];
              return field ? [[field, value]] : [];
            }),
          ),
          payment_intent: form.payment_intent as string,
          status: 'pending',
        };
        refunds.set(refund.id, refund);
        return reply(200, refund);
      }
      const refund = refundId ? refunds.get(refundId) : undefined;
      if (refund && request.method === 'GET') return reply(200, refund);
      return reply(404, {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such refund: '${refundId}'`,
        },
      });
    }
    const paidOut = payouts.answer(request.method ?? '', url);
    if (paidOut) return reply(paidOut.status, paidOut.body);
    const match = /^\/v1\/checkout\/sessions(?:\/([^/]+)(\/expire)?)?$/.exec(url.pathname);
    if (!match)
      return reply(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
    const [, sessionId, expire] = match;
    if (!sessionId && request.method === 'POST') {
      const refused = checkoutParamProblem(form) ?? mandates.sessionProblem(form);
      if (refused) return reply(400, refused);
      if (state.refuseEmails && form.customer_email !== undefined) {
        const message = `Invalid email address: ${form.customer_email}`;
        return reply(400, invalid('customer_email', message, 'email_invalid'));
      }
      const checked = linesTotal(form);
      if ('refusal' in checked) return reply(400, checked.refusal);
      const { total } = checked;
      const created = nowSeconds();
      const expiresAt = form.expires_at === undefined ? undefined : Number(form.expires_at);
      if (expiresAt !== undefined && (expiresAt < created + 1800 || expiresAt > created + 86_400)) {
        return reply(
          400,
          invalid(
            'expires_at',
            'The `expires_at` timestamp must be between 30 minutes and 24 hours after Checkout Session creation.',
            'parameter_invalid_integer',
          ),
        );
      }
      const session = mandates.session(
        checkoutSession(form, { id: id(livemode ? 'cs_live' : 'cs_test'), total, at: created, livemode }),
        form,
      );
      sessions.set(session.id, session);
      forms.set(session.id, form);
      return reply(200, session);
    }
    const session = sessionId ? sessions.get(sessionId) : undefined;
    if (!session) {
      return reply(404, {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such checkout.session: '${sessionId}'`,
        },
      });
    }
    if (expire && request.method === 'POST') {
      if (session.status !== 'open') {
        return reply(400, {
          error: {
            type: 'invalid_request_error',
            message: `Only Checkout Sessions with a status in ["open"] can be expired.`,
          },
        });
      }
      session.status = 'expired';
      return reply(200, session);
    }
    if (request.method === 'GET') return reply(200, mandates.expanded(session, url.searchParams));
    return reply(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    endpoint: { host: '127.0.0.1', port, protocol: 'http' },
    requests,
    exchanges,
    violations,
    sessions,
    forms,
    mandates: mandates.api,
    declines: fakeDeclines({ id, nowSeconds, sessions, paymentIntents: mandates.api.paymentIntents }),
    payouts,
    completeSession(sessionId, completion = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      // The PaymentIntent of a declined attempt, if any, is the one the buyer then pays.
      const paymentIntent = typeof session.payment_intent === 'string' ? session.payment_intent : id('pi');
      Object.assign(session, {
        status: 'complete',
        payment_status: completion.async ? 'unpaid' : 'paid',
        payment_intent: paymentIntent,
        ...buyerAnswers(session, completion.buyer ?? {}),
      });
      paymentIntents.set(paymentIntent, {
        amount: Number(session.amount_total),
        currency: String(session.currency),
        refunded: 0,
      });
      mandates.complete(session, forms.get(sessionId) ?? {}, completion.method);
      return session;
    },
    ...fakeAsyncPayments({ id, sessions, paymentIntents: mandates.api.paymentIntents }),
    refunds,
    settleRefund(refundId, outcome) {
      const refund = refunds.get(refundId);
      if (!refund) throw new Error(`no refund ${refundId}`);
      const paymentIntent = paymentIntents.get(refund.payment_intent);
      if (outcome === 'failed' && refund.status !== 'failed' && paymentIntent) {
        paymentIntent.refunded -= Number(refund.amount);
      }
      Object.assign(refund, {
        status: outcome,
        failure_reason: outcome === 'failed' ? 'expired_or_canceled_card' : null,
      });
      return refund;
    },
    refundInDashboard(paymentIntentId) {
      const paymentIntent = paymentIntents.get(paymentIntentId);
      if (!paymentIntent) throw new Error(`no payment intent ${paymentIntentId}`);
      const refund: FakeRefund = {
        id: id('re'),
        object: 'refund',
        amount: paymentIntent.amount - paymentIntent.refunded,
        currency: paymentIntent.currency,
        created: nowSeconds(),
        failure_reason: null,
        metadata: {},
        payment_intent: paymentIntentId,
        status: 'succeeded',
      };
      paymentIntent.refunded = paymentIntent.amount;
      refunds.set(refund.id, refund);
      return refund;
    },
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(value) {
      state.latencyMs = value;
    },
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    get refuseEmails() {
      return state.refuseEmails;
    },
    set refuseEmails(value) {
      state.refuseEmails = value;
    },
    get clockAheadMs() {
      return state.clockAheadMs;
    },
    set clockAheadMs(value) {
      state.clockAheadMs = value;
    },
    signedEvent(type, object, webhookSecret, eventOptions = {}) {
      const body = JSON.stringify({
        id: id('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created: nowSeconds(),
        data: { object },
        livemode: eventOptions.livemode ?? isLive(options.secretKey),
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: webhookSecret });
      return { body, signature };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fake as the test stacks start it (test/support/psp-stack.ts), with credentials it accepts. */
export const STRIPE_FAKE = {
  provider: 'stripe',
  credentials: { secret_key: 'sk_test_fakepsp_123', webhook_secret: 'whsec_fakepsp_456' },
  async start() {
    const fake = await startFakeStripe({ secretKey: STRIPE_FAKE.credentials.secret_key });
    return Object.assign(fake, { apiUrl: fake.url });
  },
} as const satisfies PspFakeDefinition;
