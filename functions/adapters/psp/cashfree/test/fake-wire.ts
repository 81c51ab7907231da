import { randomInt } from 'node:crypto';
import type { RecordedPspRequest } from '../../../../../test/support/fake-psp-server.ts';
import { cashfree as descriptor } from '../descriptor.ts';
import { CASHFREE_API_VERSION, indiaTime } from '../wire.ts';

// What the fake Cashfree (fake.ts) holds, and how it answers and refuses as Cashfree does beyond its document.

/** A link as the fake holds it: Cashfree's `LinkEntity`. */
export type FakeLink = Record<string, unknown> & {
  cf_link_id: string;
  link_id: string;
  link_status: string;
  link_amount: number;
  link_currency: string;
  link_amount_paid: number;
  link_notes: Record<string, string>;
  link_meta: Record<string, string>;
  link_url: string;
};

/** The order Cashfree makes of a link's payment (`PaymentLinkOrderEntity`). */
export type FakeOrder = Record<string, unknown> & {
  order_id: string;
  link_id: string;
  order_status: string;
  order_amount: number;
  order_currency: string;
};

export type FakeRefund = Record<string, unknown> & {
  order_id: string;
  refund_id: string;
  refund_amount: number;
  refund_status: string;
};

/**
 * The words of `link_meta.payment_methods` (its document's description): those the descriptor maps ours to, and
 * `ccc`, `ppc`, `app`. (The wallet's word is another PSP's id, which the name rule lets only a descriptor's
 * `methods` spell: test/unit/psp-names.test.ts.)
 */
export const METHOD_WORDS = new Set([
  ...Object.values(descriptor.methods).flatMap((words) => words.split(',')),
  ...['ccc', 'ppc', 'app'],
]);
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const digits = (length: number) => Array.from({ length }, () => randomInt(10)).join('');
export const code = () =>
  Array.from({ length: 12 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[randomInt(36)]).join('');

export type Answer = { status: number; body: unknown; raw?: string; headers?: Record<string, string> };
export const error = (status: number, type: string, code: string, message: string): Answer => ({
  status,
  body: { message, code, type },
});
export const invalid = (code: string, message: string) => error(400, 'invalid_request_error', code, message);

/**
 * A payment's webhook as Cashfree writes it: amounts with their two decimals (`499.00`), which only the raw body
 * keeps, so that a verification of re-serialised JSON would fail.
 */
export function paymentWebhookBody(order: FakeOrder, type: string): string {
  const amount = order.order_amount.toFixed(2);
  const success = type === 'PAYMENT_SUCCESS_WEBHOOK';
  const payment = {
    cf_payment_id: order.cf_payment_id,
    payment_status: success ? 'SUCCESS' : 'FAILED',
    payment_amount: '__AMOUNT__',
    payment_currency: order.order_currency,
    payment_message: success ? 'Transaction successful' : 'Transaction declined by the bank',
    payment_time: indiaTime(new Date()),
    bank_reference: digits(12),
    payment_group: 'upi',
  };
  const data = {
    order: {
      order_id: order.order_id,
      order_amount: '__AMOUNT__',
      order_currency: order.order_currency,
      order_tags: order.order_tags,
    },
    payment,
    customer_details: { customer_phone: '9999999999' },
  };
  return JSON.stringify({ data, event_time: indiaTime(new Date()), type }).replaceAll('"__AMOUNT__"', amount);
}

export function headerProblem(
  request: RecordedPspRequest,
  keys: { clientId: string; clientSecret: string },
): Answer | undefined {
  const { headers } = request;
  if (headers['x-client-id'] !== keys.clientId || headers['x-client-secret'] !== keys.clientSecret) {
    return error(401, 'authentication_error', 'request_failed', 'authentication Failed');
  }
  if (headers['x-api-version'] !== CASHFREE_API_VERSION) {
    return invalid('x-api-version_invalid', `x-api-version should be ${CASHFREE_API_VERSION}`);
  }
  const key = headers['x-idempotency-key'];
  if (key !== undefined && !UUID.test(String(key))) {
    return invalid('x-idempotency-key_invalid', 'x-idempotency-key should be a UUID');
  }
  return undefined;
}

export const hasPaise = (value: number) => Number(value.toFixed(2)) === value;

/** What Cashfree refuses of a link that its document lets through. */
export function linkProblem(
  body: Record<string, unknown>,
  links: Map<string, FakeLink>,
  currencies: readonly string[],
): Answer | undefined {
  const id = body.link_id as string;
  if (!/^[A-Za-z0-9_-]{1,50}$/.test(id)) return invalid('link_id_invalid', 'link_id is invalid');
  if (links.has(id))
    return error(409, 'invalid_request_error', 'link_id_already_exists', 'link_id already exists');
  const amount = body.link_amount as number;
  if (!hasPaise(amount)) return invalid('link_amount_invalid', 'link_amount can have at most 2 decimals');
  if (!currencies.includes(body.link_currency as string))
    return invalid('link_currency_invalid', 'currency is not enabled');
  if (body.link_currency === 'INR' && amount < 1) {
    return invalid('link_amount_invalid', 'link_amount should be at least 1');
  }
  const customer = body.customer_details as { customer_phone?: string };
  if (!/^\d{10}$/.test(customer.customer_phone ?? '')) {
    return invalid('customer_details.customer_phone_invalid', 'customer_phone should be 10 digits');
  }
  const expiry = Date.parse(String(body.link_expiry_time));
  if (Number.isNaN(expiry) || expiry <= Date.now())
    return invalid('link_expiry_time_invalid', 'link_expiry_time is invalid');
  const meta = (body.link_meta ?? {}) as Record<string, string>;
  if ((meta.return_url ?? '').length > 250)
    return invalid('link_meta.return_url_invalid', 'return_url is too long');
  const words = meta.payment_methods?.split(',') ?? [];
  if (!words.every((word) => METHOD_WORDS.has(word))) {
    return invalid('link_meta.payment_methods_invalid', 'payment_methods is invalid');
  }
  if (Object.keys((body.link_notes ?? {}) as object).length > 5)
    return invalid('link_notes_invalid', 'at most 5 notes');
  return undefined;
}
