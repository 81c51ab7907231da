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

export interface FakeStripe {
  url: string;
  endpoint: { host: string; port: number; protocol: 'http' };
  requests: RecordedRequest[];
  sessions: Map<string, FakeSession>;
  /**
   * What Stripe does when the buyer pays: the session completes with a PaymentIntent; with an asynchronous
   * method (SEPA Direct Debit) it completes `unpaid` until `settleAsyncPayment`.
   */
  completeSession(id: string, options?: { async?: boolean }): FakeSession;
  /** The asynchronous payment of a completed session succeeded (`checkout.session.async_payment_succeeded`). */
  settleAsyncPayment(id: string): FakeSession;
  /** A webhook event as Stripe sends it: the JSON body and its `Stripe-Signature` header. */
  signedEvent(type: string, session: FakeSession, webhookSecret: string): { body: string; signature: string };
  stop(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/**
 * A local server that speaks Stripe's wire format for the endpoints the adapter uses: form-encoded requests,
 * JSON responses shaped like the Checkout Session object of Stripe's API reference, errors in Stripe's
 * `{ "error": { type, message } }` envelope. The official SDK is pointed at it with `host`/`port`/`protocol`.
 */
export async function startFakeStripe(options: { secretKey: string }): Promise<FakeStripe> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, FakeSession>();

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://stripe.local');
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers, form });
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${options.secretKey}`) {
      return reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    const match = /^\/v1\/checkout\/sessions(?:\/([^/]+)(\/expire)?)?$/.exec(url.pathname);
    if (!match)
      return reply(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
    const [, sessionId, expire] = match;
    if (!sessionId && request.method === 'POST') {
      const created = Math.floor(Date.now() / 1000);
      const session: FakeSession = {
        id: id('cs_test'),
        object: 'checkout.session',
        amount_subtotal: Number(form['line_items[0][price_data][unit_amount]']),
        amount_total: Number(form['line_items[0][price_data][unit_amount]']),
        cancel_url: form.cancel_url ?? null,
        client_reference_id: form.client_reference_id ?? null,
        created,
        currency: form['line_items[0][price_data][currency]'],
        expires_at: Number(form.expires_at ?? created + 86_400),
        livemode: false,
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
      Object.assign(session, {
        status: 'complete',
        payment_status: completion.async ? 'unpaid' : 'paid',
        payment_intent: id('pi'),
      });
      return session;
    },
    settleAsyncPayment(sessionId) {
      const session = sessions.get(sessionId);
      if (session?.status !== 'complete') throw new Error(`no completed session ${sessionId}`);
      session.payment_status = 'paid';
      return session;
    },
    signedEvent(type, session, webhookSecret) {
      const body = JSON.stringify({
        id: id('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created: Math.floor(Date.now() / 1000),
        data: { object: session },
        livemode: false,
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
