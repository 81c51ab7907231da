import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspNotification } from '../../../ports/psp.ts';

/** `x-signature: ts=<ts>,v1=<hex>`: its parts, or undefined when it has not both. */
function signatureParts(header: string | undefined): { ts: string; v1: string } | undefined {
  const parts = new Map(
    (header ?? '').split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const ts = parts.get('ts');
  const v1 = parts.get('v1');
  return ts && v1 && /^[0-9a-f]{64}$/i.test(v1) ? { ts, v1: v1.toLowerCase() } : undefined;
}

/**
 * The manifest Mercado Pago signs: `id:{data.id};request-id:{x-request-id};ts:{ts};`, the id lower-cased when
 * alphanumeric (as Mercado Pago writes it), a part whose value is absent left out.
 */
export function signedManifest(
  dataId: string | undefined,
  requestId: string | undefined,
  ts: string,
): string {
  const id = dataId && /^[A-Za-z0-9]+$/.test(dataId) ? dataId.toLowerCase() : dataId;
  return `${id ? `id:${id};` : ''}${requestId ? `request-id:${requestId};` : ''}ts:${ts};`;
}

/** Whether `x-signature`'s `v1` is the hex HMAC-SHA256 of the manifest keyed with one of `secrets`. */
export function validMercadoPagoSignature(
  dataId: string | undefined,
  headers: Record<string, string | undefined>,
  secrets: readonly string[],
): boolean {
  const parts = signatureParts(headers['x-signature']);
  if (!parts) return false;
  const manifest = signedManifest(dataId, headers['x-request-id'], parts.ts);
  const given = Buffer.from(parts.v1, 'hex');
  return secrets.some((secret) =>
    timingSafeEqual(given, createHmac('sha256', secret).update(manifest, 'utf8').digest()),
  );
}

/**
 * A Mercado Pago webhook (`{action, type, data: {id}, live_mode, …}`), verified: `x-signature` signs its
 * `data.id` with the `x-request-id` and `ts` it came with, keyed with the connection's webhook secret (or the one
 * being replaced). Mercado Pago also puts `data.id` in the address's query; the body's is the one read, the same
 * id, signed all the same. Nothing else in the body is signed, so nothing else is trusted: a `payment` names its
 * payment, whose true status, amount, mode and our ids are then read back (`GET /v1/payments/{id}`). Other topics
 * (merchant orders, chargebacks) concern nothing we record: verified, then ignored.
 */
export function verifiedMercadoPagoNotification(
  rawBody: string,
  headers: Record<string, string | undefined>,
  secrets: readonly string[],
  livemode: boolean,
): PspNotification[] {
  const body = parsedBody(rawBody);
  const raw = body.data?.id;
  const dataId = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
  if (!dataId || !validMercadoPagoSignature(dataId, headers, secrets)) {
    throw new InvalidNotificationError('The x-signature header does not verify.');
  }
  if (body.type !== 'payment') return [];
  return [
    {
      type: typeof body.action === 'string' ? body.action : 'payment',
      sessionId: /^\d+$/.test(dataId) ? dataId : null,
      refundReference: null,
      // The read-back decides the mode (`live_mode` of the payment); the body's is only compared first.
      livemode: typeof body.live_mode === 'boolean' ? body.live_mode : livemode,
    },
  ];
}

interface WebhookBody {
  action?: unknown;
  type?: unknown;
  live_mode?: unknown;
  data?: { id?: unknown };
}

function parsedBody(rawBody: string): WebhookBody {
  try {
    const body = JSON.parse(rawBody) as unknown;
    if (body !== null && typeof body === 'object') return body as WebhookBody;
  } catch {
    // Answered below.
  }
  throw new InvalidNotificationError('Not a Mercado Pago notification.');
}
