import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspNotification } from '../../../ports/psp.ts';

/**
 * Square's webhook notifications (developer.squareup.com/docs/webhooks/step3validate): authentic only when
 * `x-square-hmacsha256-signature` is the base64 HMAC-SHA256, keyed with the subscription's signature key, of the
 * notification URL exactly as subscribed followed by the raw body. Square's own helper
 * (`WebhooksHelper.verifySignature`) compares with `===`; this compares in constant time.
 */
export function validSquareSignature(
  notificationUrl: string,
  rawBody: string,
  signature: string | undefined,
  keys: readonly string[],
): boolean {
  if (!signature || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) return false;
  const given = Buffer.from(signature, 'base64');
  return keys.some((key) =>
    timingSafeEqual(
      given,
      createHmac('sha256', key)
        .update(notificationUrl + rawBody, 'utf8')
        .digest(),
    ),
  );
}

/** The events whose object is a payment or a refund; any other verified event is acknowledged and ignored. */
const PAYMENT_EVENTS = new Set(['payment.created', 'payment.updated']);
const REFUND_EVENTS = new Set(['refund.created', 'refund.updated']);

interface SquareEvent {
  type?: unknown;
  data?: { object?: { payment?: { order_id?: unknown }; refund?: { id?: unknown } } };
}

/**
 * What a verified notification names: a payment's order (the session it paid, read back with
 * `retrieveSession`), or a refund (read back with `retrieveRefund`). Nothing else of the body is trusted. Square
 * says nothing of the mode in the body: a subscription lives in one environment, and its signature key is the
 * connection's, so the notification is of the connection's mode.
 */
export function squareNotification(rawBody: string, livemode: boolean): PspNotification {
  let event: SquareEvent;
  try {
    event = JSON.parse(rawBody) as SquareEvent;
  } catch {
    throw new InvalidNotificationError('A Square notification that is not JSON.');
  }
  if (event === null || typeof event !== 'object' || typeof event.type !== 'string') {
    throw new InvalidNotificationError('A Square notification without its type.');
  }
  const object = event.data?.object;
  const orderId = object?.payment?.order_id;
  const refundId = object?.refund?.id;
  return {
    type: event.type,
    sessionId: PAYMENT_EVENTS.has(event.type) && typeof orderId === 'string' ? orderId : null,
    refundReference: REFUND_EVENTS.has(event.type) && typeof refundId === 'string' ? refundId : null,
    livemode,
  };
}
