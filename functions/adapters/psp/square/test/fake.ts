import { createHmac, randomBytes } from 'node:crypto';
import { type RecordedPspRequest, startFakePspServer } from '../../../../../test/support/fake-psp-server.ts';
import { type ContractExchange, loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';

type Json = Record<string, unknown>;
type Money = { amount: number; currency: string };
export type FakeSquareOrder = Json & { id: string; state: string; tenders?: Json[]; total_money: Money };
export type FakeSquarePayment = Json & { id: string; status: string; order_id: string; amount_money: Money };
export type FakeSquareRefund = Json & { id: string; status: string; payment_id: string; amount_money: Money };
export type FakeSquareLink = Json & { id: string; order_id: string; url: string };

export interface FakeSquare {
  /** `SQUARE_API_URL`, and the origin of its payment links' pages (`/u/{code}`). */
  url: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, judged by Square's `api.json` (test/contract/square.trimmed.json). */
  exchanges: ContractExchange[];
  /** Requests the document refuses (answered 400), answers it does not allow (500s), notifications it does not. */
  violations: string[];
  links: Map<string, FakeSquareLink>;
  orders: Map<string, FakeSquareOrder>;
  payments: Map<string, FakeSquarePayment>;
  refunds: Map<string, FakeSquareRefund>;
  /** Where it posts its signed notifications as they happen (the subscription's URL); none: only kept. */
  notificationUrl: string | undefined;
  /** The notification bodies made so far, newest last. */
  notifications: string[];
  /**
   * The buyer pays the order of a payment link (a session id `<link>:<order>` or the order's id): COMPLETED,
   * or FAILED (`decline`); `charged` makes Square report another amount than the order's; `fees` are the
   * payment's `processing_fee` amounts (none by default, as before Square adds them).
   */
  pay(
    session: string,
    options?: { decline?: boolean; charged?: Money; fees?: Money[] },
  ): Promise<FakeSquarePayment>;
  /** Square's outcome of a refund (COMPLETED, FAILED), and its `refund.updated` notification. */
  settleRefund(refundId: string, status: 'COMPLETED' | 'FAILED'): Promise<FakeSquareRefund>;
  /** A notification of `type` about `object` as Square sends it: its body, held to the document. */
  notification(type: string, object: { payment: FakeSquarePayment } | { refund: FakeSquareRefund }): string;
  /** The `x-square-hmacsha256-signature` of a body sent to `url`, with `key` (by default the fake's). */
  signature(body: string, url: string, key?: string): string;
  outage: 'none' | 'hang' | 'error';
  stop(): Promise<void>;
}

const base62 = (length: number) =>
  Array.from(
    randomBytes(length),
    (byte) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[byte % 62],
  ).join('');
const upper = (length: number) =>
  Array.from(randomBytes(length), (byte) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[byte % 32]).join('');

/** Square's error body: `{errors: [Error]}`, the same for every operation. */
const failure = (status: number, code: string, detail: string, category = 'INVALID_REQUEST_ERROR') => ({
  status,
  body: { errors: [{ category, code, detail }] },
});

/** What judges Square's undeclared error answers (`api.json` declares only each operation's 200). */
const ERRORS = {
  type: 'object',
  required: ['errors'],
  properties: { errors: { type: 'array', items: { $ref: '#/components/schemas/Error' } } },
};

/**
 * A local server speaking Square's API for what the adapter calls (developer.squareup.com/reference/square):
 * `Authorization: Bearer <access token>`, snake_case JSON with `Money` in minor units, payment links
 * (`POST /v2/online-checkout/payment-links` with an `order`, `DELETE …/{id}`, which cancels the order), orders,
 * payments and refunds, idempotency keys in the body (the same key with another body: 400
 * `IDEMPOTENCY_KEY_REUSED`), errors as `{errors: [{category, code, detail}]}`. It refuses what Square refuses of
 * what the adapter sends: a request its document refuses, neither or both of `quick_pay` and `order`, an order
 * of another location or in a currency the location does not take, a refund of a payment not completed or of
 * more than remains. Notifications are signed as Square signs them: the base64 HMAC-SHA256 of the subscription's
 * URL and the body, with its signature key.
 */
export async function startFakeSquare(options: {
  accessToken: string;
  locationId: string;
  signatureKey: string;
  /** The currency its location takes (a location takes its country's only): EUR, a location in Ireland. */
  currency?: string;
}): Promise<FakeSquare> {
  const links = new Map<string, FakeSquareLink>();
  const orders = new Map<string, FakeSquareOrder>();
  const payments = new Map<string, FakeSquarePayment>();
  const refunds = new Map<string, FakeSquareRefund>();
  const replays = new Map<string, { body: string; answer: { status: number; body: unknown } }>();
  const notifications: string[] = [];
  const state = { outage: 'none' as FakeSquare['outage'], notificationUrl: undefined as string | undefined };
  const currency = options.currency ?? 'EUR';
  const document = loadPspContract(new URL('./contract/square.trimmed.json', import.meta.url), {
    undeclaredErrors: ERRORS,
  });
  let origin = '';

  const server = await startFakePspServer(
    'application/json',
    (request, url) => {
      if (url.pathname.startsWith('/u/')) return { status: 404, body: undefined, raw: 'Not found' };
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error') return failure(500, 'INTERNAL_SERVER_ERROR', 'Fake outage', 'API_ERROR');
      if (request.headers.authorization !== `Bearer ${options.accessToken}`) {
        return failure(401, 'UNAUTHORIZED', 'The access token is not valid.', 'AUTHENTICATION_ERROR');
      }
      const body = request.body ? (JSON.parse(request.body) as Json) : {};
      const key =
        typeof body.idempotency_key === 'string' ? `${url.pathname} ${body.idempotency_key}` : undefined;
      const replay = key ? replays.get(key) : undefined;
      if (replay) {
        return replay.body === request.body
          ? replay.answer
          : failure(400, 'IDEMPOTENCY_KEY_REUSED', 'The idempotency key was used with another request.');
      }
      const answer = route(request.method, url.pathname, body);
      if (key && answer.status < 300) replays.set(key, { body: request.body, answer });
      return answer;
    },
    {
      document,
      outside: (path) => path.startsWith('/u/'),
      refuse: (found) => failure(400, 'BAD_REQUEST', found.join('; ')),
    },
  );
  origin = server.url;

  function route(method: string, path: string, body: Json) {
    const link = /^\/v2\/online-checkout\/payment-links(?:\/([A-Z0-9]+))?$/.exec(path);
    if (link && !link[1] && method === 'POST') return createLink(body);
    if (link?.[1] && method === 'DELETE') return deleteLink(link[1]);
    const read = /^\/v2\/(orders|payments|refunds)\/([A-Za-z0-9]+)$/.exec(path);
    if (read && method === 'GET') {
      const [, kind, id] = read as unknown as [string, 'orders' | 'payments' | 'refunds', string];
      const found = { orders, payments, refunds }[kind].get(id);
      const name = { orders: 'order', payments: 'payment', refunds: 'refund' }[kind];
      return found
        ? { status: 200, body: { [name]: found } }
        : failure(404, 'NOT_FOUND', `No ${name} ${id}.`);
    }
    if (path === '/v2/refunds' && method === 'POST') return refund(body);
    return failure(404, 'NOT_FOUND', `No ${method} ${path}.`);
  }

  function createLink(body: Json) {
    if ((body.quick_pay === undefined) === (body.order === undefined)) {
      return failure(400, 'CONFLICTING_PARAMETERS', 'Exactly one of quick_pay and order is required.');
    }
    const sent = body.order as Json & {
      line_items?: (Json & { quantity: string; base_price_money?: Money })[];
    };
    if (sent.location_id !== options.locationId) {
      return failure(400, 'INVALID_LOCATION', `No location ${String(sent.location_id)}.`);
    }
    const lines = sent.line_items ?? [];
    if (lines.length === 0) return failure(400, 'MISSING_REQUIRED_PARAMETER', 'An order needs line items.');
    let total = 0;
    for (const line of lines) {
      const money = line.base_price_money;
      if (!/^[1-9]\d*$/.test(line.quantity) || !money)
        return failure(400, 'INVALID_VALUE', 'A line is invalid.');
      if (money.currency !== currency) {
        return failure(400, 'UNSUPPORTED_CURRENCY', `The location takes ${currency}, not ${money.currency}.`);
      }
      total += Number(line.quantity) * money.amount;
    }
    const now = new Date().toISOString();
    const order: FakeSquareOrder = {
      ...sent,
      id: `${base62(24)}ZY`,
      line_items: lines.map((line) => ({
        ...line,
        uid: base62(22),
        item_type: 'ITEM',
        total_money: { amount: Number(line.quantity) * (line.base_price_money?.amount ?? 0), currency },
      })),
      source: { name: 'Fake online checkout' },
      state: 'OPEN',
      version: 1,
      total_money: { amount: total, currency },
      net_amount_due_money: { amount: total, currency },
      created_at: now,
      updated_at: now,
    };
    const code = base62(8);
    const link: FakeSquareLink = {
      id: upper(16),
      version: 1,
      order_id: order.id,
      ...(body.checkout_options ? { checkout_options: body.checkout_options } : {}),
      ...(body.pre_populated_data ? { pre_populated_data: body.pre_populated_data } : {}),
      ...(body.payment_note ? { payment_note: body.payment_note } : {}),
      url: `${origin}/u/${code}`,
      long_url: `${origin}/u/${code}?long=1`,
      created_at: now,
    };
    orders.set(order.id, order);
    links.set(link.id, link);
    return { status: 200, body: { payment_link: link, related_resources: { orders: [order] } } };
  }

  function deleteLink(id: string) {
    const link = links.get(id);
    if (!link) return failure(404, 'NOT_FOUND', `No payment link ${id}.`);
    links.delete(id);
    const order = orders.get(link.order_id);
    // Square cancels the order a deleted link created; one already paid stays as it is.
    if (order && !order.tenders?.length)
      Object.assign(order, { state: 'CANCELED', updated_at: new Date().toISOString() });
    return { status: 200, body: { id, cancelled_order_id: link.order_id } };
  }

  function refund(body: Json) {
    const payment = payments.get(String(body.payment_id));
    const amount = body.amount_money as Money;
    if (!payment) return failure(404, 'NOT_FOUND', `No payment ${String(body.payment_id)}.`);
    if (payment.status !== 'COMPLETED') {
      return failure(
        400,
        'REFUND_ERROR_PAYMENT_NEEDS_COMPLETION',
        'The payment is not completed.',
        'REFUND_ERROR',
      );
    }
    const refunded = (payment.refunded_money as Money | undefined)?.amount ?? 0;
    if (
      amount.currency !== payment.amount_money.currency ||
      amount.amount > payment.amount_money.amount - refunded
    ) {
      return failure(400, 'REFUND_AMOUNT_INVALID', 'The refund is more than remains.', 'REFUND_ERROR');
    }
    const now = new Date().toISOString();
    const made: FakeSquareRefund = {
      id: `${payment.id}_${base62(24)}`.replace(/[^A-Za-z0-9]/g, ''),
      status: 'PENDING',
      location_id: options.locationId,
      amount_money: amount,
      payment_id: payment.id,
      order_id: payment.order_id,
      ...(body.reason ? { reason: body.reason } : {}),
      created_at: now,
      updated_at: now,
    };
    refunds.set(made.id, made);
    Object.assign(payment, {
      refunded_money: { amount: refunded + amount.amount, currency: amount.currency },
      refund_ids: [...((payment.refund_ids as string[] | undefined) ?? []), made.id],
      updated_at: now,
    });
    return { status: 200, body: { refund: made } };
  }

  const signature = (body: string, url: string, key = options.signatureKey) =>
    createHmac('sha256', key)
      .update(url + body, 'utf8')
      .digest('base64');

  function notification(type: string, object: { payment: FakeSquarePayment } | { refund: FakeSquareRefund }) {
    const event = {
      merchant_id: 'MLFAKE0SQUARE',
      type,
      event_id: crypto.randomUUID(),
      created_at: new Date().toISOString(),
      data: {
        type: 'payment' in object ? 'payment' : 'refund',
        id: 'payment' in object ? object.payment.id : object.refund.id,
        object,
      },
    };
    const schema = `${type.startsWith('payment') ? 'Payment' : 'Refund'}${type.endsWith('created') ? 'Created' : 'Updated'}Event`;
    server.violations.push(...document.checkSchema(schema, event, `${type} notification`));
    const body = JSON.stringify(event);
    notifications.push(body);
    return body;
  }

  async function notify(type: string, object: { payment: FakeSquarePayment } | { refund: FakeSquareRefund }) {
    const body = notification(type, object);
    const url = state.notificationUrl;
    if (!url) return;
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-square-hmacsha256-signature': signature(body, url) },
      body,
    });
  }

  return {
    url: server.url,
    requests: server.requests,
    exchanges: server.exchanges,
    violations: server.violations,
    links,
    orders,
    payments,
    refunds,
    notifications,
    get notificationUrl() {
      return state.notificationUrl;
    },
    set notificationUrl(value) {
      state.notificationUrl = value;
    },
    async pay(session, payOptions = {}) {
      const orderId = session.includes(':') ? session.slice(session.indexOf(':') + 1) : session;
      const order = orders.get(orderId);
      if (order?.state !== 'OPEN') throw new Error(`no open order ${orderId}`);
      const now = new Date().toISOString();
      const amount = payOptions.charged ?? { amount: order.total_money.amount, currency };
      const payment: FakeSquarePayment = {
        id: `${base62(27)}ZY`,
        created_at: now,
        updated_at: now,
        amount_money: amount,
        total_money: amount,
        approved_money: payOptions.decline ? { amount: 0, currency } : amount,
        status: payOptions.decline ? 'FAILED' : 'COMPLETED',
        source_type: 'CARD',
        card_details: {
          status: payOptions.decline ? 'FAILED' : 'CAPTURED',
          card: { card_brand: 'VISA', last_4: '1111' },
          ...(payOptions.decline
            ? { errors: [{ category: 'PAYMENT_METHOD_ERROR', code: 'GENERIC_DECLINE', detail: 'Declined.' }] }
            : {}),
        },
        location_id: options.locationId,
        order_id: order.id,
        version_token: base62(40),
        ...(payOptions.fees
          ? {
              processing_fee: payOptions.fees.map((fee) => ({
                effective_at: now,
                type: 'INITIAL',
                amount_money: fee,
              })),
            }
          : {}),
      };
      payments.set(payment.id, payment);
      if (!payOptions.decline) {
        order.tenders = [
          ...(order.tenders ?? []),
          {
            id: base62(24),
            type: 'CARD',
            location_id: options.locationId,
            amount_money: amount,
            payment_id: payment.id,
            created_at: now,
          },
        ];
        Object.assign(order, {
          net_amount_due_money: { amount: 0, currency },
          version: Number(order.version) + 1,
          updated_at: now,
        });
      }
      await notify('payment.created', { payment });
      await notify('payment.updated', { payment });
      return payment;
    },
    async settleRefund(refundId, status) {
      const made = refunds.get(refundId);
      if (!made) throw new Error(`no refund ${refundId}`);
      Object.assign(made, { status, updated_at: new Date().toISOString() });
      const payment = payments.get(made.payment_id);
      if (status === 'FAILED' && payment) {
        const refunded = (payment.refunded_money as Money).amount - made.amount_money.amount;
        payment.refunded_money = { amount: refunded, currency: made.amount_money.currency };
      }
      await notify('refund.updated', { refund: made });
      return made;
    },
    notification,
    signature,
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
export const SQUARE_FAKE = {
  provider: 'square',
  /** A sandbox connection's credentials as `npm run psp -- add` stores them. */
  credentials: {
    access_token: 'EAAAlFakeSquareSandboxAccessToken0123456789',
    location_id: 'LFAKE0SQUARE1',
    signature_key: 'fake-square-signature-key_0123',
  },
  async start() {
    const { access_token, location_id, signature_key } = SQUARE_FAKE.credentials;
    const fake = await startFakeSquare({
      accessToken: access_token,
      locationId: location_id,
      signatureKey: signature_key,
    });
    return Object.assign(fake, { apiUrl: fake.url });
  },
} as const satisfies PspFakeDefinition;
