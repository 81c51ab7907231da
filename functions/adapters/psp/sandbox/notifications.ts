import { createHmac, timingSafeEqual } from 'node:crypto';
import { MODES, type Mode } from '../../../domain/principal.ts';

/**
 * The sandbox: a simulated PSP built into the service, for test mode and the local stack. Its hosted page lives
 * under `/sandbox/checkout/{session id}` (functions/handlers/sandbox-checkout.ts); Pay completes the session and
 * notifies `POST /psp/sandbox/notifications/{connection id}` exactly as a real PSP would, signed with the
 * sandbox's own secret:
 * `Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';
export const SANDBOX_COMPLETED = 'sandbox.session.completed';
export const SANDBOX_FAILED = 'sandbox.session.failed';
/** Signatures older (or newer) than this are refused, so a captured notification cannot be replayed later. */
export const SANDBOX_SIGNATURE_TOLERANCE_S = 300;

export interface SandboxNotificationBody {
  type: string;
  session_id: string;
  link_id: string;
  mode: Mode;
  created: number;
}

export function signSandboxPayload(secret: string, rawBody: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

export function verifySandboxSignature(
  secret: string,
  rawBody: string,
  header: string | undefined,
  now: Date,
): boolean {
  const parts = new Map(
    (header ?? '').split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get('t'));
  const given = Buffer.from(parts.get('v1') ?? '', 'hex');
  if (!Number.isInteger(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - timestamp) > SANDBOX_SIGNATURE_TOLERANCE_S) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The body of a sandbox notification, when it is one. */
export function parseSandboxNotification(rawBody: string): SandboxNotificationBody | undefined {
  try {
    const body = JSON.parse(rawBody) as Partial<SandboxNotificationBody>;
    if (
      typeof body.type === 'string' &&
      typeof body.session_id === 'string' &&
      typeof body.link_id === 'string' &&
      MODES.includes(body.mode as Mode)
    ) {
      return body as SandboxNotificationBody;
    }
  } catch {
    // not JSON
  }
  return undefined;
}
