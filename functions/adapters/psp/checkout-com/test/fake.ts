import { createHmac, randomBytes } from 'node:crypto';
import { type RecordedPspRequest, startFakePspServer } from '../../../../../test/support/fake-psp-server.ts';
import { type ContractExchange, loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';

export type FakeCkoLink = {
  id: string;
  status: 'Active' | 'Payment Received' | 'Expired';
  payment_id?: string;
  amount: number;
  currency: string;
  reference: string;
  description?: string;
  expires_on: string;
  billing: { address: { country: string } };
  products?: { name: string; quantity: number; price: number }[];
  metadata?: Record<string, unknown>;
  return_url?: string;
  /** What Checkout.com's public document predates, kept to check what the adapter sent. */
  processing_channel_id: string;
  capture: boolean;
  allow_payment_methods?: string[];
  locale?: string;
};

export interface FakeCkoAction {
  id: string;
  type: 'Authorization' | 'Capture' | 'Void' | 'Refund';
  amount: number;
  approved: boolean;
  response_code: string;
  response_summary: string;
  processed_on: string;
  reference?: string;
  metadata?: Record<string, unknown>;
}

export type FakeCkoPayment = {
  id: string;
  status: 'Authorized' | 'Captured' | 'Voided' | 'Declined' | 'Partially Refunded' | 'Refunded';
  amount: number;
  currency: string;
  reference: string;
  metadata?: Record<string, unknown>;
  requested_on: string;
  link: FakeCkoLink;
  actions: FakeCkoAction[];
};

export interface FakeCheckout {
  /** The SDK's `host`, and the origin of the hosted pages (`/link/{id}`). */
  url: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, checked against checkout/checkout-api-reference (test/contract/checkout.trimmed.json). */
  exchanges: ContractExchange[];
  /** Requests the document refuses (answered with Checkout.com's 422) and answers it does not allow (500s). */
  violations: string[];
  links: Map<string, FakeCkoLink>;
  payments: Map<string, FakeCkoPayment>;
  /** Where the fake posts its signed webhooks as they happen (the connection's notification address); none: kept. */
  webhookUrl: string | undefined;
  /** The webhook bodies made so far, newest last, as posted (or that would have been). */
  webhooks: string[];
  /** The buyer pays on the link (`approve`: the issuer approves; else declines): its payment, and the webhook. */
  /** A declined one's authorization answers `responseCode` (20005, Do not honour, unless told). */
  pay(linkId: string, approve?: boolean, responseCode?: string): Promise<FakeCkoPayment>;
  /** Checkout.com's outcome of a refund it accepted: the refund's action approved, or declined. */
  settleRefund(paymentId: string, actionId: string, approved: boolean): Promise<string>;
  /** A webhook as Checkout.com posts it: the body and its `Cko-Signature`. */
  signed(body: string): { body: string; headers: Record<string, string> };
  outage: 'none' | 'hang' | 'error';
  /** Voids alone answer 502 (Checkout.com failing them while the rest works). */
  voidsFail: boolean;
  stop(): Promise<void>;
}

const base32 = (length: number) =>
  Array.from(randomBytes(length), (byte) => 'abcdefghijklmnopqrstuvwxyz234567'[byte % 32]).join('');
const actionId = () => `act_${base32(26)}`;
/** Checkout.com's answer to a capture, void or refund the payment does not allow: 403, without a body. */
const NOT_ALLOWED = { status: 403, body: undefined };

/**
 * A local server speaking Checkout.com's API for what the adapter uses (api-reference.checkout.com): a
 * `Bearer sk_…` secret key, JSON bodies with amounts in minor units, payment links (`POST /payment-links`,
 * `GET /payment-links/{id}`, answered as `PaymentLinksResponse` / `GetPaymentLinkResponse`), payments
 * (`GET /payments/{id}`, `/actions`), captures, voids and refunds answered `202 Accepted` with their
 * `action_id`, `Cko-Idempotency-Key` replays, errors as `{ request_id, error_type, error_codes }`. It refuses
 * what Checkout.com refuses: a request its document refuses, another processing channel, a capture or a void of a
 * payment that is not authorized, a refund above what is left (403 "action not allowed", as Checkout.com's
 * captures, voids and refunds answer). Its hosted page (`/link/{id}`) lets a buyer pay in a browser; webhooks
 * are signed with `Cko-Signature`, the HMAC-SHA256 of the body with the signature key.
 */
export async function startFakeCheckout(options: {
  secretKeys: string[];
  processingChannelId: string;
  signatureKey: string;
}): Promise<FakeCheckout> {
  const links = new Map<string, FakeCkoLink>();
  const payments = new Map<string, FakeCkoPayment>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const webhooks: string[] = [];
  /** Refunds accepted and not yet processed: a payment's actions list them only once processed. */
  const pendingRefunds = new Map<string, { payment: FakeCkoPayment; action: FakeCkoAction }>();
  const state = {
    outage: 'none' as FakeCheckout['outage'],
    voidsFail: false,
    webhookUrl: undefined as string | undefined,
  };
  const error = (status: number, codes: string[], type = 'request_invalid') => ({
    status,
    body: { request_id: `req_${base32(20)}`, error_type: type, error_codes: codes },
  });
  let origin = '';

  const server = await startFakePspServer(
    'application/json',
    (request, url) => {
      if (url.pathname.startsWith('/link/')) return hostedPage(request, url);
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error') return { status: 502, body: undefined };
      const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!options.secretKeys.includes(key)) return { status: 401, body: undefined };
      const idempotency = request.headers['cko-idempotency-key'];
      const replayKey = typeof idempotency === 'string' ? `${key} ${url.pathname} ${idempotency}` : undefined;
      const replay = replayKey && replays.get(replayKey);
      if (replay) return replay;
      const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
      const answer = route(request.method, url.pathname, body);
      if (replayKey && answer.status < 300) replays.set(replayKey, answer);
      return answer;
    },
    {
      document: loadPspContract(new URL('./contract/checkout.trimmed.json', import.meta.url), {
        // Checkout.com ignores fields it does not know, and its public document predates fields its API takes (a
        // payment link's `processing_channel_id`, `capture`, `allow_payment_methods`), which this fake checks.
        openRequestBodies: true,
        // Its dates are `ISO 8601 date and time`, its own name for what `date-time` checks.
        formats: ['ISO 8601 date and time'],
      }),
      outside: (path) => path.startsWith('/link/'),
      refuse: (violations) => error(422, violations),
    },
  );
  origin = server.url;

  function route(method: string, path: string, body: Record<string, unknown>) {
    const link = /^\/payment-links(?:\/(pl_[\w-]{12}))?$/.exec(path);
    const payment = /^\/payments\/(pay_\w{26})(?:\/(actions|captures|voids|refunds))?$/.exec(path);
    if (link && !link[1] && method === 'POST') return createLink(body);
    if (link?.[1] && method === 'GET') {
      const found = links.get(link[1]);
      return found ? { status: 200, body: linkView(found) } : { status: 404, body: undefined };
    }
    const found = payment?.[1] ? payments.get(payment[1]) : undefined;
    if (!payment || !found) return { status: 404, body: undefined };
    if (method === 'GET' && !payment[2]) return { status: 200, body: paymentView(found) };
    if (method === 'GET' && payment[2] === 'actions') return { status: 200, body: found.actions };
    if (method === 'POST' && payment[2] === 'captures') return capture(found, body);
    if (method === 'POST' && payment[2] === 'voids') {
      return state.voidsFail ? { status: 502, body: undefined } : voidPayment(found, body);
    }
    if (method === 'POST' && payment[2] === 'refunds') return refund(found, body);
    return { status: 404, body: undefined };
  }

  function createLink(body: Record<string, unknown>) {
    // Fields newer than the public document: checked here as Checkout.com checks them.
    if (body.processing_channel_id !== options.processingChannelId) {
      return error(422, ['processing_channel_id_invalid']);
    }
    if (body.capture !== undefined && typeof body.capture !== 'boolean')
      return error(422, ['capture_invalid']);
    const methods = body.allow_payment_methods;
    if (methods !== undefined && (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string'))) {
      return error(422, ['allow_payment_methods_invalid']);
    }
    const id = `pl_${base32(12)}`;
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 86_400;
    const created = {
      ...(body as Omit<FakeCkoLink, 'id' | 'status' | 'expires_on' | 'capture'>),
      id,
      status: 'Active',
      expires_on: new Date(Date.now() + expiresIn * 1000).toISOString(),
      capture: body.capture !== false,
    } as FakeCkoLink;
    links.set(id, created);
    return {
      status: 201,
      body: {
        id,
        expires_on: created.expires_on,
        reference: created.reference,
        _links: {
          self: { href: `${origin}/payment-links/${id}` },
          redirect: { href: `${origin}/link/${id}` },
        },
      },
    };
  }

  function linkView(link: FakeCkoLink) {
    const { processing_channel_id: _, capture: __, allow_payment_methods: ___, locale: ____, ...view } = link;
    return {
      ...view,
      status: link.status === 'Active' && Date.parse(link.expires_on) < Date.now() ? 'Expired' : link.status,
      _links: {
        self: { href: `${origin}/payment-links/${link.id}` },
        redirect: { href: `${origin}/link/${link.id}` },
      },
    };
  }

  function paymentView(payment: FakeCkoPayment) {
    const { link: _, actions: __, ...view } = payment;
    return {
      ...view,
      approved: payment.status !== 'Declined',
      _links: {
        self: { href: `${origin}/payments/${payment.id}` },
        actions: { href: `${origin}/payments/${payment.id}/actions` },
      },
    };
  }

  const action = (type: FakeCkoAction['type'], amount: number, body: Record<string, unknown>) => {
    const made: FakeCkoAction = {
      id: actionId(),
      type,
      amount,
      approved: true,
      response_code: '10000',
      response_summary: 'Approved',
      processed_on: new Date().toISOString(),
      ...(typeof body.reference === 'string' ? { reference: body.reference } : {}),
      ...(body.metadata ? { metadata: body.metadata as Record<string, unknown> } : {}),
    };
    return made;
  };
  const accepted = (payment: FakeCkoPayment, made: FakeCkoAction) => ({
    status: 202,
    body: {
      action_id: made.id,
      ...(made.reference ? { reference: made.reference } : {}),
      _links: { payment: { href: `${origin}/payments/${payment.id}` } },
    },
  });

  function capture(payment: FakeCkoPayment, body: Record<string, unknown>) {
    if (payment.status !== 'Authorized') return NOT_ALLOWED;
    const made = action('Capture', Number(body.amount ?? payment.amount), body);
    payment.actions.unshift(made);
    payment.status = 'Captured';
    void notify('payment_captured', payment, made);
    return accepted(payment, made);
  }

  function voidPayment(payment: FakeCkoPayment, body: Record<string, unknown>) {
    if (payment.status !== 'Authorized') return NOT_ALLOWED;
    const made = action('Void', payment.amount, body);
    payment.actions.unshift(made);
    payment.status = 'Voided';
    void notify('payment_voided', payment, made);
    return accepted(payment, made);
  }

  function refund(payment: FakeCkoPayment, body: Record<string, unknown>) {
    const refunded = [...payment.actions, ...[...pendingRefunds.values()].map((pending) => pending.action)]
      .filter((made) => made.type === 'Refund' && made.approved)
      .reduce((sum, made) => sum + made.amount, 0);
    const amount = Number(body.amount ?? payment.amount - refunded);
    if (!['Captured', 'Partially Refunded'].includes(payment.status) || amount > payment.amount - refunded) {
      return NOT_ALLOWED;
    }
    const made = action('Refund', amount, body);
    pendingRefunds.set(made.id, { payment, action: made });
    return accepted(payment, made);
  }

  function signed(body: string) {
    const signature = createHmac('sha256', options.signatureKey).update(body).digest('hex');
    return { body, headers: { 'content-type': 'application/json', 'cko-signature': signature } };
  }

  /** Checkout.com's webhook body (docs.checkout.com "Webhooks: payment events"), posted when an address is set. */
  async function notify(type: string, payment: FakeCkoPayment, made?: FakeCkoAction): Promise<string> {
    const body = JSON.stringify({
      id: `evt_${base32(26)}`,
      type,
      version: '1.0.33',
      created_on: new Date().toISOString(),
      data: {
        id: payment.id,
        ...(made ? { action_id: made.id } : {}),
        amount: made?.amount ?? payment.amount,
        currency: payment.currency,
        reference: made?.reference ?? payment.reference,
        ...(made?.metadata || payment.metadata ? { metadata: made?.metadata ?? payment.metadata } : {}),
      },
      _links: { self: { href: `${origin}/payments/${payment.id}` } },
    });
    webhooks.push(body);
    if (state.webhookUrl) {
      const { headers } = signed(body);
      await fetch(state.webhookUrl, { method: 'POST', headers, body }).catch(() => undefined);
    }
    return body;
  }

  async function pay(linkId: string, approve = true, responseCode = '20005'): Promise<FakeCkoPayment> {
    const link = links.get(linkId);
    if (link?.status !== 'Active') throw new Error(`payment link ${linkId} takes no payment`);
    const payment: FakeCkoPayment = {
      id: `pay_${base32(26)}`,
      status: approve ? (link.capture ? 'Captured' : 'Authorized') : 'Declined',
      amount: link.amount,
      currency: link.currency,
      reference: link.reference,
      ...(link.metadata ? { metadata: link.metadata } : {}),
      requested_on: new Date().toISOString(),
      link,
      actions: [],
    };
    const authorization = {
      ...action('Authorization', link.amount, {}),
      approved: approve,
      ...(approve ? {} : { response_code: responseCode, response_summary: 'Declined' }),
    };
    payment.actions.unshift(authorization);
    payments.set(payment.id, payment);
    link.payment_id = payment.id;
    if (approve) link.status = 'Payment Received';
    await notify(approve ? 'payment_approved' : 'payment_declined', payment);
    if (approve && link.capture) await notify('payment_captured', payment);
    return payment;
  }

  /**
   * The hosted page (`_links.redirect`): the amount, Pay and Decline. Pay authorizes (or captures, for a link
   * with capture on) and sends the buyer back to the link's `return_url`; Decline stays on the page.
   */
  function hostedPage(request: RecordedPspRequest, url: URL) {
    const [, , id, verb] = url.pathname.split('/');
    const link = id ? links.get(id) : undefined;
    const page = (status: number, html: string) => ({
      status,
      body: undefined,
      raw: `<!doctype html><html lang="en"><meta charset="utf-8"><title>Checkout.com</title>${html}</html>`,
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
    if (!link) return page(404, '<h1>Payment link not found</h1>');
    if (request.method === 'POST' && verb === 'pay' && link.status === 'Active') {
      void pay(link.id, true);
      return {
        status: 303,
        body: undefined,
        raw: '',
        headers: { location: link.return_url ?? `${origin}/` },
      };
    }
    if (request.method === 'POST' && verb === 'decline' && link.status === 'Active') {
      void pay(link.id, false);
      return page(200, '<h1>Payment declined</h1>');
    }
    if (link.status !== 'Active') return page(410, `<h1>This payment link is ${link.status}</h1>`);
    const amount = `${(link.amount / 100).toFixed(2)} ${link.currency}`;
    return page(
      200,
      `<main><h1>Pay ${amount}</h1><p>${link.description ?? ''}</p>` +
        `<form method="post" action="/link/${link.id}/pay"><button>Pay</button></form>` +
        `<form method="post" action="/link/${link.id}/decline"><button>Decline</button></form></main>`,
    );
  }

  return {
    url: server.url,
    requests: server.requests,
    exchanges: server.exchanges,
    violations: server.violations,
    links,
    payments,
    get webhookUrl() {
      return state.webhookUrl;
    },
    set webhookUrl(value) {
      state.webhookUrl = value;
    },
    webhooks,
    pay,
    async settleRefund(paymentId, refundActionId, approved) {
      const pending = pendingRefunds.get(refundActionId);
      if (pending?.payment.id !== paymentId) throw new Error(`no refund ${refundActionId} of ${paymentId}`);
      const { payment, action: made } = pending;
      pendingRefunds.delete(refundActionId);
      payment.actions.unshift(made);
      made.approved = approved;
      made.response_summary = approved ? 'Approved' : 'Refund declined';
      if (approved) {
        const refunded = payment.actions
          .filter((candidate) => candidate.type === 'Refund' && candidate.approved)
          .reduce((sum, candidate) => sum + candidate.amount, 0);
        payment.status = refunded >= payment.amount ? 'Refunded' : 'Partially Refunded';
      }
      return notify(approved ? 'payment_refunded' : 'payment_refund_declined', payment, made);
    },
    signed,
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    get voidsFail() {
      return state.voidsFail;
    },
    set voidsFail(value) {
      state.voidsFail = value;
    },
    stop: server.stop,
  };
}

/** The fake as the test stacks start it (test/support/psp-stack.ts), with credentials it accepts. */
export const CHECKOUT_FAKE = {
  provider: 'checkout_com',
  /** A sandbox connection's credentials as `npm run psp -- add` stores them. */
  credentials: {
    secret_key: 'sk_sbox_m73dzbpy7cf3gfd46xr4yj5xo4e',
    processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
    signature_key: 'whsk_fake-checkout-signature-key',
  },
  async start() {
    const { secret_key, processing_channel_id, signature_key } = CHECKOUT_FAKE.credentials;
    const fake = await startFakeCheckout({
      secretKeys: [secret_key],
      processingChannelId: processing_channel_id,
      signatureKey: signature_key,
    });
    return Object.assign(fake, { apiUrl: fake.url });
  },
} as const satisfies PspFakeDefinition;
