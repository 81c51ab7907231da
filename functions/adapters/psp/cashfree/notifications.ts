import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import { refundReference } from './wire.ts';

/**
 * Cashfree's webhooks (docs/orchestration.md#cashfree): `x-webhook-signature` is the base64 HMAC-SHA256, keyed
 * with the connection's client secret, of `x-webhook-timestamp` (epoch milliseconds) immediately followed by the
 * exact raw body. The SDK's own `PGVerifyWebhookSignature` compares with `===`; this compares in constant time.
 * No age limit is put on the timestamp: a replayed notification only makes us read the link back from Cashfree.
 */
export const SIGNATURE_HEADER = 'x-webhook-signature';
export const TIMESTAMP_HEADER = 'x-webhook-timestamp';

export function cashfreeSignature(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}${rawBody}`, 'utf8').digest('base64');
}

/** Whether the headers sign the raw body with `secret`. */
export function signedByCashfree(
  secret: string,
  rawBody: string,
  headers: Record<string, string | undefined>,
): boolean {
  const signature = headers[SIGNATURE_HEADER] ?? '';
  const timestamp = headers[TIMESTAMP_HEADER] ?? '';
  if (!/^\d{1,16}$/.test(timestamp) || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}${rawBody}`, 'utf8').digest();
  return timingSafeEqual(Buffer.from(signature, 'base64'), expected);
}

/** What a verified webhook names: the link (our session) or the refund to read back, or neither. */
export interface CashfreeEvent {
  type: string;
  linkId: string | null;
  refundReference: string | null;
}

const PAYMENT_EVENT = /^PAYMENT_[A-Z_]+_WEBHOOK$/;
const REFUND_EVENTS = new Set(['REFUND_STATUS_WEBHOOK', 'AUTO_REFUND_STATUS_WEBHOOK']);

/**
 * The link or refund a verified body names. `PAYMENT_LINK_EVENT` (what a link's `notify_url` is sent) names its
 * `link_id`, ours; a payment's webhook (`PAYMENT_SUCCESS_WEBHOOK` …, configured in the dashboard) names it among
 * its order's tags, which Cashfree fills for a link's order; a refund's webhook names its order and our refund id.
 * Any other event (settlements, disputes) names nothing of ours.
 */
export function cashfreeEvent(rawBody: string): CashfreeEvent {
  let body: { type?: unknown; data?: Record<string, unknown> };
  try {
    body = JSON.parse(rawBody) as typeof body;
  } catch {
    throw new InvalidNotificationError('Not a Cashfree webhook.');
  }
  if (typeof body?.type !== 'string' || body.data === null || typeof body.data !== 'object') {
    throw new InvalidNotificationError('Not a Cashfree webhook.');
  }
  const { type, data } = body as { type: string; data: Record<string, unknown> };
  if (type === 'PAYMENT_LINK_EVENT') return { type, linkId: text(data.link_id), refundReference: null };
  if (PAYMENT_EVENT.test(type)) {
    const order = data.order as { order_tags?: Record<string, unknown> } | undefined;
    return { type, linkId: text(order?.order_tags?.link_id), refundReference: null };
  }
  if (REFUND_EVENTS.has(type)) {
    const refund = data.refund as { order_id?: unknown; refund_id?: unknown } | undefined;
    const orderId = text(refund?.order_id);
    const refundId = text(refund?.refund_id);
    return {
      type,
      linkId: null,
      refundReference: orderId && refundId ? refundReference(orderId, refundId) : null,
    };
  }
  return { type, linkId: null, refundReference: null };
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
