import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** A request the fake received, with its form-encoded body decoded into flat `a[b][0]` keys. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: Record<string, string>;
}

export type FakeSession = Record<string, unknown> & { id: string; status: string; payment_status: string };
export type FakeRefund = Record<string, unknown> & { id: string; status: string; payment_intent: string };

export interface FakeStripe {
  url: string;
  endpoint: { host: string; port: number; protocol: 'http' };
  requests: RecordedRequest[];
  sessions: Map<string, FakeSession>;
  refunds: Map<string, FakeRefund>;
  /**
   * What Stripe does when the buyer pays: the session completes with a PaymentIntent; with an asynchronous
   * method (SEPA Direct Debit) it completes `unpaid` until `settleAsyncPayment`.
   */
  completeSession(id: string, options?: { async?: boolean }): FakeSession;
  /** The asynchronous payment of a completed session succeeded (`checkout.session.async_payment_succeeded`). */
  settleAsyncPayment(id: string): FakeSession;
  /** What Stripe does when a refund settles or fails. */
  settleRefund(id: string, outcome: 'succeeded' | 'failed'): FakeRefund;
  /**
   * A webhook event as Stripe sends it: the JSON body and its `Stripe-Signature` header. `livemode` is what
   * the event says (by default the mode of the fake's first key).
   */
  signedEvent(
    type: string,
    object: FakeSession | FakeRefund,
    webhookSecret: string,
    options?: { livemode?: boolean },
  ): { body: string; signature: string };
  stop(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * A local server that speaks Stripe's wire format for the endpoints the adapter uses: form-encoded requests,
 * JSON responses shaped like the Checkout Session and Refund objects of Stripe's API reference, errors in
 * Stripe's `{ "error": { type, message } }` envelope, `livemode` from the key (`sk_live_`/`rk_live_`), and
 * `Idempotency-Key` replays of POSTs. The official SDK is pointed at it with `host`/`port`/`protocol`.
 * `secretKeys` are further keys it accepts (a rotated key).
 */
export async function startFakeStripe(options: {
  secretKey: string;
  secretKeys?: string[];
}): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, FakeSession>();
  const refunds = new Map<string, FakeRefund>();
  const paymentIntents = new Map<string, { amount: number; currency: string; refunded: number }>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const keys = [options.secretKey, ...(options.secretKeys ?? [])];
  const isLive = (key: string) => /^(sk|rk)_live_/.test(key);

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://stripe.local');
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers, form });
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const idempotencyKey = request.headers['idempotency-key'];
    const replayKey =
      request.method === 'POST' && typeof idempotencyKey === 'string'
        ? `${key} ${idempotencyKey}`
        : undefined;
    const reply = (status: number, body: unknown) => {
      if (replayKey && status < 300) replays.set(replayKey, { status, body });
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
      response.end(JSON.stringify(body));
    };
    if (!keys.includes(key)) {
      return reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    const replay = replayKey ? replays.get(replayKey) : undefined;
    if (replay) return reply(replay.status, replay.body);
    const livemode = isLive(key);
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
          created: Math.floor(Date.now() / 1000),
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
    const match = /^\/v1\/checkout\/sessions(?:\/([^/]+)(\/expire)?)?$/.exec(url.pathname);
    if (!match)
      return reply(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
    const [, sessionId, expire] = match;
    if (!sessionId && request.method === 'POST') {
      // Stripe's minimum charge (docs.stripe.com/currencies), here for the currencies the tests use.
      const minimum = { eur: 50, usd: 50, gbp: 30 }[form['line_items[0][price_data][currency]'] ?? ''];
      if (minimum !== undefined && Number(form['line_items[0][price_data][unit_amount]']) < minimum) {
        return reply(400, {
          error: {
            type: 'invalid_request_error',
            code: 'amount_too_small',
            param: 'line_items[0][price_data][unit_amount]',
            message: "The Checkout Session's total amount due must add up to at least €0.50 eur",
          },
        });
      }
      const created = Math.floor(Date.now() / 1000);
      const session: FakeSession = {
        id: id(livemode ? 'cs_live' : 'cs_test'),
        object: 'checkout.session',
        amount_subtotal: Number(form['line_items[0][price_data][unit_amount]']),
        amount_total: Number(form['line_items[0][price_data][unit_amount]']),
        cancel_url: form.cancel_url ?? null,
        client_reference_id: form.client_reference_id ?? null,
        created,
        currency: form['line_items[0][price_data][currency]'],
        expires_at: Number(form.expires_at ?? created + 86_400),
        livemode,
        metadata: Object.fromEntries(
          Object.entries(form).flatMap(([name, value]) => {
            const field = /^metadata\[(.+)\]$/.exec(name)?.[1];
            return field ? [[field, value]] : [];
          }),
        ),
        mode: form.mode,
        payment_intent: null,
        payment_status: 'unpaid',
        status: 'open',
        success_url: form.success_url ?? null,
        url: `https://checkout.stripe.com/c/pay/${id('cs_test')}`,
      };
      session.url = `https://checkout.stripe.com/c/pay/${session.id}`;
      sessions.set(session.id, session);
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
    if (request.method === 'GET') return reply(200, session);
    return reply(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    endpoint: { host: '127.0.0.1', port, protocol: 'http' },
    requests,
    sessions,
    completeSession(sessionId, completion = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      const paymentIntent = id('pi');
      Object.assign(session, {
        status: 'complete',
        payment_status: completion.async ? 'unpaid' : 'paid',
        payment_intent: paymentIntent,
      });
      paymentIntents.set(paymentIntent, {
        amount: Number(session.amount_total),
        currency: String(session.currency),
        refunded: 0,
      });
      return session;
    },
    settleAsyncPayment(sessionId) {
      const session = sessions.get(sessionId);
      if (session?.status !== 'complete') throw new Error(`no completed session ${sessionId}`);
      session.payment_status = 'paid';
      return session;
    },
    refunds,
    settleRefund(refundId, outcome) {
      const refund = refunds.get(refundId);
      if (!refund) throw new Error(`no refund ${refundId}`);
      Object.assign(refund, {
        status: outcome,
        failure_reason: outcome === 'failed' ? 'expired_or_canceled_card' : null,
      });
      return refund;
    },
    signedEvent(type, object, webhookSecret, eventOptions = {}) {
      const body = JSON.stringify({
        id: id('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created: Math.floor(Date.now() / 1000),
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
