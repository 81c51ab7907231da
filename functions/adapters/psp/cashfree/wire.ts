import { createHash } from 'node:crypto';
import type { Amount } from '../../../domain/money.ts';
import { minorUnits } from '../../../domain/money.ts';
import type { PaymentMethod } from '../../../domain/payment-methods.ts';
import type { cashfree } from './descriptor.ts';

/** How Cashfree's API spells what the adapter sends and reads (docs/orchestration.md#cashfree). */

/**
 * The `x-api-version` the adapter sends: the version of the document its fake is held to (cashfree/cashfree-pg
 * `api/openapi.yaml`, test/contract/SOURCE.md), not the SDK's own default, so that what we send and read is what
 * that document describes.
 */
export const CASHFREE_API_VERSION = '2025-01-01';

/** Its hosts, sandbox and production (`CFEnvironment`), before its API's base path `/pg`. */
export const CASHFREE_PAGE_ORIGIN = {
  test: 'https://payments-test.cashfree.com',
  live: 'https://payments.cashfree.com',
} as const;

/**
 * The phone number a link is made with when the buyer gave none: Cashfree requires `customer_phone` and says in
 * its `customer_details` description that placeholder details are accepted; no SMS goes out (`link_notify`).
 */
export const PLACEHOLDER_PHONE = '9999999999';

/** Our decimal amount as Cashfree's JSON number of major units (INR 250.50 → 250.5), at most two decimals. */
export const cashfreeAmount = (amount: Amount): number => Number(amount.value);

/**
 * Cashfree's JSON number as our decimal string with the currency's decimals, or undefined when it is no amount
 * we could have asked for (more decimals than the currency has, not a finite number, not a known currency): such
 * an answer is never taken as the amount paid.
 */
export function amountFromCashfree(value: unknown, currency: unknown): Amount | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || typeof currency !== 'string') {
    return undefined;
  }
  const code = currency.toUpperCase();
  const digits = minorUnits(code);
  if (digits === undefined) return undefined;
  const text = value.toFixed(digits);
  return Number(text) === value ? { value: text, currency: code } : undefined;
}

/**
 * A time as Cashfree writes them, ISO 8601 in India's time (`2026-01-02T10:20:12+05:30`), to the second: the form
 * of every example its document gives for `link_expiry_time`.
 */
export function indiaTime(at: Date): string {
  const shifted = new Date(Math.floor(at.getTime() / 1000) * 1000 + 330 * 60_000);
  return `${shifted.toISOString().slice(0, 19)}+05:30`;
}

/**
 * The `x-idempotency-key` of a request made for one of our ids: Cashfree declares the header a UUID, so the key
 * is a name-based UUID (RFC 9562 version 5) of the id, the same for every retry of that request.
 */
export function idempotencyKey(id: string): string {
  const hash = createHash('sha1').update(`cashfree:${id}`).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The link's `payment_methods`: the comma-separated words of the methods the buyer may use (its descriptor's
 * `methods`), each once; undefined for a link that names none (Cashfree's page offers them all), and the empty
 * string when Cashfree serves none of them.
 */
export function cashfreeMethods(
  descriptor: typeof cashfree,
  methods: readonly PaymentMethod[] | null,
): string | undefined {
  if (!methods) return undefined;
  const words = methods.flatMap((method) => descriptor.methods[method]?.split(',') ?? []);
  return [...new Set(words)].join(',');
}

/**
 * A refund's reference: Cashfree reads a refund by its order and our refund id together
 * (`GET /orders/{order_id}/refunds/{refund_id}`), and neither contains a `/`.
 */
export const refundReference = (orderId: string, refundId: string): string => `${orderId}/${refundId}`;

export function refundOfReference(reference: string): { orderId: string; refundId: string } | undefined {
  const [orderId, refundId, ...rest] = reference.split('/');
  return orderId && refundId && rest.length === 0 ? { orderId, refundId } : undefined;
}
