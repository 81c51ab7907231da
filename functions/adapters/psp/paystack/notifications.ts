import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspNotification } from '../../../ports/psp.ts';

/** The events that concern a refund: their `data` is the refund, whose status is then read (`retrieveRefund`). */
const REFUND_EVENT = /^refund\./;

/**
 * Whether `signature` (the `x-paystack-signature` header) is the hex HMAC-SHA512 of the exact raw body keyed with
 * the connection's secret key: Paystack signs with the API key of the mode, it has no webhook secret of its own.
 */
export function validPaystackSignature(rawBody: string, signature: string | undefined, secretKey: string) {
  if (!signature || !/^[0-9a-f]{128}$/i.test(signature)) return false;
  const expected = createHmac('sha512', secretKey).update(rawBody, 'utf8').digest();
  return timingSafeEqual(Buffer.from(signature.toLowerCase(), 'hex'), expected);
}

/**
 * A Paystack webhook (`{event, data}`), verified: signed with the connection's key and of its mode (`data.domain`,
 * `test` or `live`). Only its ids are used: `charge.success` names its transaction by our reference, `refund.*` its
 * refund by Paystack's id; their true status is then read back from Paystack, never taken from the body.
 */
export function verifiedPaystackNotification(
  rawBody: string,
  headers: Record<string, string | undefined>,
  secretKey: string,
  livemode: boolean,
): PspNotification[] {
  if (!validPaystackSignature(rawBody, headers['x-paystack-signature'], secretKey)) {
    throw new InvalidNotificationError('The x-paystack-signature header does not verify.');
  }
  const { event, data } = parsedEvent(rawBody);
  if ((data.domain === 'live') !== livemode) {
    throw new InvalidNotificationError('A Paystack event of the other mode.');
  }
  const refund = REFUND_EVENT.test(event);
  return [
    {
      type: event,
      sessionId: event === 'charge.success' && typeof data.reference === 'string' ? data.reference : null,
      refundReference: refund && typeof data.id === 'number' ? String(data.id) : null,
      livemode,
    },
  ];
}

function parsedEvent(rawBody: string): { event: string; data: Record<string, unknown> } {
  try {
    const body = JSON.parse(rawBody) as { event?: unknown; data?: unknown };
    if (typeof body.event === 'string' && body.data !== null && typeof body.data === 'object') {
      return { event: body.event, data: body.data as Record<string, unknown> };
    }
  } catch {
    // Answered below: signed, but not an event.
  }
  throw new InvalidNotificationError('Not a Paystack event.');
}
