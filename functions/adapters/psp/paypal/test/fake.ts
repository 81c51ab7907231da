import { createHmac, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { type RecordedPspRequest, startFakePspServer } from '../../../../../test/support/fake-psp-server.ts';
import type { ContractExchange } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import { fromMinorUnits } from '../../../../domain/money.ts';
import {
  error,
  type FakePaypalOrder,
  type FakePaypalPayer,
  hex,
  type Money,
  minor,
  paypalContract,
  paypalId,
  startApprovalPage,
  unitProblem,
} from './fake-answers.ts';
import { type FakePaypalVault, fakePaypalVault } from './fake-mandates.ts';

export type { FakePaypalOrder, FakePaypalPayer } from './fake-answers.ts';

/** A PayPal account, in Orders v2 `paypal_wallet_response` terms. */
const DEFAULT_PAYER: FakePaypalPayer = {
  email_address: 'payer@example.com',
  account_id: 'QYR5Z8XDVJNXQ',
  name: { given_name: 'Pat', surname: 'Payer' },
  address: { country_code: 'NL' },
};

export type FakePaypalRefund = {
  id: string;
  status: 'COMPLETED' | 'PENDING' | 'FAILED' | 'CANCELLED';
  amount: Money;
  invoice_id?: string;
  custom_id?: string;
  capture_id: string;
  order_id: string;
};

/** A webhook delivery as PayPal makes it: the body and the transmission headers its verification call checks. */
export interface FakePaypalDelivery {
  body: string;
  headers: Record<string, string>;
}

export interface FakePaypal {
  /** The API's origin (`PAYPAL_API_URL`). */
  url: string;
  /** The origin of the hosted approval page (`/checkoutnow?token=…`), plain HTTP for Chromium. */
  pageUrl: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, checked against paypal/paypal-rest-api-specifications (test/contract/paypal-*). */
  exchanges: ContractExchange[];
  violations: string[];
  orders: Map<string, FakePaypalOrder>;
  refunds: Map<string, FakePaypalRefund>;
  /** Captures made per order: PayPal-Request-Id replays make none. */
  captures: Map<string, number>;
  /** The buyer approves the order on PayPal's page (what the page's Pay button does). */
  /** The buyer approves the order with their PayPal account (by default one with the e-mail the order offered). */
  approve(orderId: string, payer?: Partial<FakePaypalPayer>): FakePaypalOrder;
  /** How the next captures end: `COMPLETED`, `PENDING` (under review), or `DECLINED` (422 INSTRUMENT_DECLINED). */
  captureOutcome: 'COMPLETED' | 'PENDING' | 'DECLINED';
  /** PayPal's fee of the next captures, in the order's currency (`seller_receivable_breakdown`); none: unset. */
  captureFee: string | undefined;
  /** The buyer approves the order with a funding source whose capture is then declined (INSTRUMENT_DECLINED). */
  decline(orderId: string): FakePaypalOrder;
  setRefundStatus(id: string, status: FakePaypalRefund['status']): FakePaypalRefund;
  /** A signed delivery of `eventType` about an order (CHECKOUT.ORDER.*, PAYMENT.CAPTURE.*) or a refund. */
  delivery(eventType: string, about: { orderId?: string; refundId?: string }): FakePaypalDelivery;
  /** Sent on approval and capture, as PayPal calls the webhook (the browser test's notifications). */
  notify: ((delivery: FakePaypalDelivery) => Promise<void>) | undefined;
  outage: 'none' | 'hang' | 'error';
  /** Vaulted wallets and the renewals charged to them (./fake-mandates.ts). */
  vault: FakePaypalVault;
  stop(): Promise<void>;
}

/**
 * A local server speaking PayPal's REST wire format for what the adapter uses (developer.paypal.com/api/rest):
 * the OAuth 2 client-credentials token, Orders v2 (create, show, capture), Payments v2 (refund a capture, show a
 * refund) and the webhook verification call; snake_case JSON, errors as `{name, message, details: [{issue}]}`,
 * `PayPal-Request-Id` replays. It refuses what PayPal refuses and the adapter might miss: a capture of an order
 * not approved (422 ORDER_NOT_APPROVED) or already captured (ORDER_ALREADY_CAPTURED), a refund above what remains
 * (CAPTURE_FULLY_REFUNDED / REFUND_AMOUNT_EXCEEDED), an `invoice_id` used before (DUPLICATE_INVOICE_ID), decimals
 * in a zero-decimal currency (DECIMAL_PRECISION), items that do not add up to `item_total`
 * (ITEM_TOTAL_MISMATCH). Its approval page works in Chromium.
 */
export async function startFakePaypal(options: {
  clientId: string;
  clientSecret: string;
  webhookId: string;
}): Promise<FakePaypal> {
  const orders = new Map<string, FakePaypalOrder>();
  const refunds = new Map<string, FakePaypalRefund>();
  const declined = new Set<string>();
  const captures = new Map<string, number>();
  const tokens = new Set<string>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const invoices = new Set<string>();
  const signingKey = randomBytes(32);
  const deliveries = new Map<string, { sig: string; event: unknown }>();
  let pageUrl = '';

  const orderBody = (order: FakePaypalOrder) => {
    const capture = order.capture;
    return {
      id: order.id,
      intent: order.intent,
      status: order.status,
      create_time: order.create_time,
      ...(order.payer && { payment_source: { paypal: { ...order.payer, ...vault.walletOf(order) } } }),
      purchase_units: order.purchase_units.map((unit) => ({
        ...unit,
        ...(capture && {
          payments: {
            captures: [
              {
                id: capture.id,
                status: capture.status,
                amount: capture.amount,
                ...(capture.fee && {
                  seller_receivable_breakdown: {
                    gross_amount: capture.amount,
                    paypal_fee: capture.fee,
                    net_amount: {
                      currency_code: capture.amount.currency_code,
                      value: fromMinorUnits(
                        minor(capture.amount) - minor(capture.fee),
                        capture.amount.currency_code,
                      ),
                    },
                  },
                }),
                final_capture: true,
                invoice_id: unit.invoice_id,
                custom_id: unit.custom_id,
              },
            ],
          },
        }),
      })),
      links: [
        { href: `https://fake.paypal/v2/checkout/orders/${order.id}`, rel: 'self', method: 'GET' },
        ...(order.status === 'PAYER_ACTION_REQUIRED'
          ? [{ href: `${pageUrl}/checkoutnow?token=${order.id}`, rel: 'payer-action', method: 'GET' }]
          : []),
      ],
    };
  };
  const refundBody = (refund: FakePaypalRefund) => ({
    id: refund.id,
    status: refund.status,
    amount: refund.amount,
    ...(refund.invoice_id && { invoice_id: refund.invoice_id }),
    ...(refund.custom_id && { custom_id: refund.custom_id }),
    links: [{ href: `https://fake.paypal/v2/payments/refunds/${refund.id}`, rel: 'self', method: 'GET' }],
  });

  const lent = { orders, invoices, pageUrl: () => pageUrl, render: orderBody };
  const vault = fakePaypalVault({ ...lent, notify: (type, id) => notifyOf(type, id) });
  const fake: FakePaypal = {
    vault,
    url: '',
    pageUrl: '',
    requests: [],
    exchanges: [],
    violations: [],
    orders,
    refunds,
    captures,
    captureOutcome: 'COMPLETED',
    captureFee: undefined,
    notify: undefined,
    outage: 'none',
    approve(orderId, payer = {}) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`No fake PayPal order ${orderId}`);
      if (order.status === 'PAYER_ACTION_REQUIRED') {
        order.status = 'APPROVED';
        const email = order.prefilled_email ?? DEFAULT_PAYER.email_address;
        order.payer = { ...DEFAULT_PAYER, email_address: email, ...payer };
      }
      return order;
    },
    decline(orderId) {
      declined.add(orderId);
      return fake.approve(orderId);
    },
    setRefundStatus(id, status) {
      const refund = refunds.get(id);
      if (!refund) throw new Error(`No fake PayPal refund ${id}`);
      refund.status = status;
      return refund;
    },
    delivery(eventType, about) {
      const order = about.orderId ? orders.get(about.orderId) : undefined;
      const refund = about.refundId ? refunds.get(about.refundId) : undefined;
      const capture = order?.capture;
      const resource = refund
        ? refundBody(refund)
        : eventType.startsWith('PAYMENT.CAPTURE.') && order && capture
          ? {
              id: capture.id,
              status: capture.status,
              amount: capture.amount,
              supplementary_data: { related_ids: { order_id: order.id } },
            }
          : order
            ? orderBody(order)
            : {};
      const event = {
        id: `WH-${paypalId()}`,
        event_version: '1.0',
        create_time: new Date().toISOString(),
        resource_type: refund ? 'refund' : eventType.startsWith('PAYMENT.') ? 'capture' : 'checkout-order',
        event_type: eventType,
        summary: eventType,
        resource,
      };
      const body = JSON.stringify(event);
      const transmissionId = randomBytes(16).toString('hex');
      const time = new Date().toISOString();
      const sig = createHmac('sha256', signingKey)
        .update(`${transmissionId}|${time}|${options.webhookId}|${body}`)
        .digest('hex');
      deliveries.set(transmissionId, { sig, event });
      return {
        body,
        headers: {
          'paypal-auth-algo': 'SHA256withRSA',
          'paypal-cert-url':
            'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270',
          'paypal-transmission-id': transmissionId,
          'paypal-transmission-sig': sig,
          'paypal-transmission-time': time,
        },
      };
    },
    stop: async () => {},
  };

  const notifyOf = (eventType: string, orderId: string) => {
    const notify = fake.notify;
    if (notify) setImmediate(() => void notify(fake.delivery(eventType, { orderId })).catch(() => {}));
  };

  const createOrder = (body: Record<string, unknown>, now: string) => {
    const units = body.purchase_units as Record<string, unknown>[];
    for (const unit of units) {
      const problem = unitProblem(unit);
      if (problem) return error(422, problem);
      if (typeof unit.invoice_id === 'string' && invoices.has(unit.invoice_id)) {
        return error(422, 'DUPLICATE_INVOICE_ID');
      }
    }
    const wallet = (
      body.payment_source as {
        paypal?: { experience_context?: Record<string, string>; email_address?: string };
      }
    )?.paypal;
    const context = wallet?.experience_context;
    // Without a return address the buyer could not come back: PayPal's page would strand them.
    if (!context?.return_url || !context.cancel_url) return error(422, 'PAYER_ACTION_REQUIRED');
    for (const unit of units) if (typeof unit.invoice_id === 'string') invoices.add(unit.invoice_id);
    const order: FakePaypalOrder = {
      id: paypalId(),
      intent: String(body.intent),
      status: 'PAYER_ACTION_REQUIRED',
      purchase_units: units.map((unit) => ({ reference_id: 'default', ...unit })),
      return_url: context.return_url,
      cancel_url: context.cancel_url,
      create_time: now,
      ...(wallet?.email_address && { prefilled_email: wallet.email_address }),
      ...(context.locale && { locale: context.locale }),
    };
    orders.set(order.id, order);
    vault.created(order.id, body);
    return { status: 201, body: orderBody(order) };
  };

  const captureOrder = (order: FakePaypalOrder) => {
    if (order.status === 'COMPLETED') {
      return error(422, 'ORDER_ALREADY_CAPTURED');
    }
    if (order.status !== 'APPROVED') {
      return error(422, 'ORDER_NOT_APPROVED');
    }
    if (fake.captureOutcome === 'DECLINED' || declined.has(order.id)) {
      return error(422, 'INSTRUMENT_DECLINED');
    }
    const amount = (order.purchase_units[0] as { amount: Money & { breakdown?: unknown } }).amount;
    order.status = 'COMPLETED';
    order.capture = {
      id: paypalId(),
      status: fake.captureOutcome,
      amount: { currency_code: amount.currency_code, value: amount.value },
      refunded: 0n,
      ...(fake.captureFee && { fee: { currency_code: amount.currency_code, value: fake.captureFee } }),
    };
    captures.set(order.id, (captures.get(order.id) ?? 0) + 1);
    vault.captured(order);
    notifyOf(`PAYMENT.CAPTURE.${fake.captureOutcome}`, order.id);
    return { status: 201, body: orderBody(order) };
  };

  const refundCapture = (captureId: string, body: Record<string, unknown>) => {
    const order = [...orders.values()].find((candidate) => candidate.capture?.id === captureId);
    const capture = order?.capture;
    if (!order || !capture) return error(404, 'INVALID_RESOURCE_ID');
    const amount = (body.amount as Money | undefined) ?? capture.amount;
    if (amount.currency_code !== capture.amount.currency_code) return error(422, 'INVALID_PARAMETER_SYNTAX');
    const left = minor(capture.amount) - capture.refunded;
    if (left <= 0n) return error(422, 'CAPTURE_FULLY_REFUNDED');
    if (minor(amount) > left) return error(422, 'REFUND_AMOUNT_EXCEEDED');
    capture.refunded += minor(amount);
    capture.status = capture.refunded === minor(capture.amount) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    const refund: FakePaypalRefund = {
      id: paypalId(),
      status: 'PENDING',
      amount,
      capture_id: captureId,
      order_id: order.id,
      ...(typeof body.invoice_id === 'string' && { invoice_id: body.invoice_id }),
      ...(typeof body.custom_id === 'string' && { custom_id: body.custom_id }),
    };
    refunds.set(refund.id, refund);
    return { status: 201, body: refundBody(refund) };
  };

  const verify = (body: Record<string, unknown>) => {
    const id = String(body.transmission_id);
    const delivered = deliveries.get(id);
    const genuine =
      delivered !== undefined &&
      body.transmission_sig === delivered.sig &&
      body.webhook_id === options.webhookId &&
      isDeepStrictEqual(body.webhook_event, delivered.event);
    return { status: 200, body: { verification_status: genuine ? 'SUCCESS' : 'FAILURE' } };
  };

  const server = await startFakePspServer(
    'application/json',
    (request, url) => {
      if (fake.outage === 'hang') return 'hang';
      if (fake.outage === 'error') return error(503, 'SERVICE_UNAVAILABLE');
      if (request.method === 'POST' && url.pathname === '/v1/oauth2/token') {
        const expected = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
        if (request.headers.authorization !== expected) {
          return {
            status: 401,
            body: { error: 'invalid_client', error_description: 'Client Authentication failed' },
          };
        }
        const token = `A21AA${hex(24)}`;
        tokens.add(token);
        return {
          status: 200,
          body: {
            scope: 'https://uri.paypal.com/services/payments/payment',
            access_token: token,
            token_type: 'Bearer',
            app_id: 'APP-80W284485P519543T',
            expires_in: 32400,
            nonce: hex(8),
          },
        };
      }
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!bearer || !tokens.has(bearer)) return error(401, 'INVALID_TOKEN');
      const requestId = request.headers['paypal-request-id'];
      const replayKey = typeof requestId === 'string' ? `${url.pathname} ${requestId}` : undefined;
      if (request.method === 'POST' && replayKey && replays.has(replayKey)) {
        return replays.get(replayKey) as { status: number; body: unknown };
      }
      const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
      const answer = route(request.method, url.pathname, body, requestId);
      if (replayKey && answer.status < 500) replays.set(replayKey, answer);
      return vault.sent(answer, url.pathname, request.method);
    },
    {
      document: paypalContract(),
      refuse: () => error(400, 'INVALID_PARAMETER_SYNTAX'),
    },
  );

  function route(method: string, path: string, body: Record<string, unknown>, requestId: unknown) {
    const now = new Date().toISOString();
    if (method === 'POST' && path === '/v2/checkout/orders') {
      return vault.createOrder(body, requestId as string | undefined, now) ?? createOrder(body, now);
    }
    const order = /^\/v2\/checkout\/orders\/([^/]+)/.exec(path)?.[1];
    if (order !== undefined) {
      const found = orders.get(order);
      if (!found) return error(404, 'INVALID_RESOURCE_ID');
      if (method === 'GET') return { status: 200, body: orderBody(found) };
      if (method === 'POST' && path.endsWith('/capture')) return captureOrder(found);
    }
    const captureId = /^\/v2\/payments\/captures\/([^/]+)\/refund$/.exec(path)?.[1];
    if (method === 'POST' && captureId) return refundCapture(captureId, body);
    const refundId = /^\/v2\/payments\/refunds\/([^/]+)$/.exec(path)?.[1];
    if (method === 'GET' && refundId) {
      const refund = refunds.get(refundId);
      return refund ? { status: 200, body: refundBody(refund) } : error(404, 'INVALID_RESOURCE_ID');
    }
    if (method === 'POST' && path === '/v1/notifications/verify-webhook-signature') return verify(body);
    return vault.route(method, path) ?? error(404, 'INVALID_RESOURCE_ID');
  }

  const page = await startApprovalPage(orders, (order) => {
    fake.approve(order.id);
    notifyOf('CHECKOUT.ORDER.APPROVED', order.id);
  });
  pageUrl = page.url;
  fake.url = server.url;
  fake.pageUrl = page.url;
  fake.requests = server.requests;
  fake.exchanges = server.exchanges;
  fake.violations = server.violations;
  fake.stop = async () => {
    await server.stop();
    page.server.closeAllConnections();
    await new Promise<void>((resolve) => page.server.close(() => resolve()));
  };
  return fake;
}

/** The fake as the test stacks start it (test/support/psp-stack.ts), with credentials it accepts. */
export const PAYPAL_FAKE = {
  provider: 'paypal',
  credentials: {
    client_id: 'AfakepspPaypalClient_0123456789',
    client_secret: 'EfakepspPaypalSecret_0123456789',
    webhook_id: '4JH86294D6297924G',
    environment: 'sandbox',
  },
  async start() {
    const { client_id, client_secret, webhook_id } = PAYPAL_FAKE.credentials;
    const fake = await startFakePaypal({
      clientId: client_id,
      clientSecret: client_secret,
      webhookId: webhook_id,
    });
    return Object.assign(fake, { apiUrl: fake.url });
  },
} as const satisfies PspFakeDefinition;
