import { DECLINE_CLASSES, type Decline } from '../../domain/mandates.ts';
import { RENEWAL_OUTCOMES, type SandboxCharge, type SandboxMandate } from '../../ports/sandbox-mandates.ts';
import { amount, itemDecoder, mode, nullable, number, objectOf, oneOf, string } from './item-decoder.ts';

/** A simulated mandate of the built-in sandbox PSP: every field stored since they exist (2026-11-30). */
export const sandboxMandateFromItem = /* @__PURE__ */ itemDecoder<SandboxMandate>('sandbox mandate', () => ({
  id: string,
  customer: string,
  connection_id: string,
  account: string,
  mode,
  session_id: string,
  subscription_id: string,
  renewals: oneOf(RENEWAL_OUTCOMES),
  status: oneOf(['valid', 'revoked']),
  created_at: string,
  updated_at: string,
}));

/** A charge of a sandbox mandate, kept under its idempotency key (since 2026-11-30). */
export const sandboxChargeFromItem = /* @__PURE__ */ itemDecoder<SandboxCharge>('sandbox charge', () => ({
  reference: string,
  mandate_id: string,
  idempotency_key: string,
  payment_id: string,
  subscription_id: string,
  period: number,
  amount,
  state: oneOf(['succeeded', 'failed']),
  decline: nullable(objectOf<Decline>({ class: oneOf(DECLINE_CLASSES), code: string, message: string })),
  created_at: string,
}));
