import type { SandboxMandateRequest, SandboxSession } from '../../ports/sandbox-sessions.ts';
import {
  amount,
  boolean,
  itemDecoder,
  mode,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  string,
} from './item-decoder.ts';
import { recurringDecoder } from './subscription-mapper.ts';

/**
 * A session of the built-in sandbox PSP (kept a week past its expiry). The optional fields came after the first
 * sessions (2026-11-22); an older session without them reads as the sandbox always read it.
 */
export const sandboxSessionFromItem = /* @__PURE__ */ itemDecoder<SandboxSession>('sandbox session', () => ({
  id: string,
  connection_id: optional(string),
  payment_id: optional(string),
  link_id: string,
  account: string,
  mode,
  amount,
  description: nullable(string),
  success_url: string,
  cancel_url: string,
  status: oneOf(['open', 'processing', 'complete', 'failed', 'expired']),
  payment_reference: nullable(string),
  processing_ms: optional(number),
  settles_at: optional(string),
  success_rate: optional(number),
  decline_code: optional(string),
  declined_attempts: number,
  created_at: string,
  expires_at: string,
  locale: optional(string),
  // Since 2026-11-30 (subscriptions): on a session that opens a mandate only.
  opens_mandate: optional(
    objectOf<SandboxMandateRequest>({
      subscription_id: string,
      without_charge: boolean,
      period_amount: amount,
      recurring: nullable(recurringDecoder),
    }),
  ),
}));
