import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspNotification } from '../../../ports/psp.ts';

/** The events whose `data` is a payment session, whose status is then read (`GET /sessions/{id}`). */
const SESSION_EVENT = /^payment_session\./;
/** The events whose `data` is a refund, whose status is then read (`GET /refunds/{id}`). */
const REFUND_EVENT = /^refund\./;

/**
 * Whether `token` (the `x-callback-token` header) is the connection's verification token. Both are hashed first, so
 * the comparison takes the same time whatever their lengths and wherever they differ: the token is a static secret,
 * the whole of Xendit's authentication of a notification.
 */
export function validCallbackToken(token: string | undefined, expected: string): boolean {
  if (!token) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(token), digest(expected));
}

/**
 * A Xendit notification (`{event, business_id, created, data}`), verified: it carries the verification token of
 * the connection's environment (Xendit's test and live tokens differ, so the token also says the mode). The token
 * signs nothing (whoever holds it can write any body), so only the ids are used: `payment_session.*` names its
 * session, `refund.*` its refund, whose true status is then read back from Xendit; other events (`payment.*`,
 * about the payment requests a session makes) name nothing we read.
 */
export function verifiedXenditNotification(
  rawBody: string,
  headers: Record<string, string | undefined>,
  callbackToken: string,
  livemode: boolean,
): PspNotification[] {
  if (!validCallbackToken(headers['x-callback-token'], callbackToken)) {
    throw new InvalidNotificationError(
      'The x-callback-token header is not the connection’s verification token.',
    );
  }
  const { event, data } = parsedEvent(rawBody);
  const id = (name: string) => (typeof data[name] === 'string' ? (data[name] as string) : null);
  return [
    {
      type: event,
      sessionId: SESSION_EVENT.test(event) ? id('payment_session_id') : null,
      refundReference: REFUND_EVENT.test(event) ? id('id') : null,
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
    // Answered below: the token was right, but this is no event.
  }
  throw new InvalidNotificationError('Not a Xendit event.');
}
