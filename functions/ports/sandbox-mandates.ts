import type { Decline } from '../domain/mandates.ts';
import type { Amount } from '../domain/money.ts';
import type { Mode } from '../domain/principal.ts';

/**
 * What a sandbox mandate's renewals do (docs/subscriptions.md#the-sandbox): chosen on the sandbox page when the
 * buyer pays, changed later on the mandate's own page; a connection's `--simulate renewal_*` overrides it for all of
 * its mandates.
 */
export const RENEWAL_OUTCOMES = [
  'succeed',
  'soft_decline',
  'hard_decline',
  'authentication_required',
] as const;
export type RenewalOutcome = (typeof RENEWAL_OUTCOMES)[number];

/** A simulated mandate of the built-in sandbox PSP: what Pay on a session that opens one leaves behind. */
export interface SandboxMandate {
  /** `sbm_…`, derived from the session that opened it (`sandboxMandateIdOf`). */
  id: string;
  customer: string;
  connection_id: string;
  account: string;
  mode: Mode;
  session_id: string;
  subscription_id: string;
  renewals: RenewalOutcome;
  /** A hard decline closes it: it is never charged again. */
  status: 'valid' | 'revoked';
  created_at: string;
  updated_at: string;
}

/** A charge of a sandbox mandate, kept under its idempotency key: a repeated key gets this answer again. */
export interface SandboxCharge {
  /** `sbch_…`, derived from the mandate and the idempotency key (`sandboxChargeReference`). */
  reference: string;
  mandate_id: string;
  idempotency_key: string;
  payment_id: string;
  subscription_id: string;
  period: number;
  amount: Amount;
  state: 'succeeded' | 'failed';
  decline: Decline | null;
  created_at: string;
}

/** The sandbox's own storage of mandates and their charges. */
export interface SandboxMandateStore {
  /** Stores the mandate unless its id exists; answers the stored one either way. */
  create(mandate: SandboxMandate): Promise<SandboxMandate>;
  get(id: string): Promise<SandboxMandate | undefined>;
  /** The mandate with what its renewals do (and its status) changed, or undefined when there is none. */
  update(
    id: string,
    changes: Partial<Pick<SandboxMandate, 'renewals' | 'status'>>,
    now: Date,
  ): Promise<SandboxMandate | undefined>;
  /** Stores the charge unless its reference exists; answers the stored one either way (the first answer wins). */
  recordCharge(charge: SandboxCharge): Promise<SandboxCharge>;
  getCharge(mandateId: string, reference: string): Promise<SandboxCharge | undefined>;
  /** Every charge of the mandate (tests count what the sandbox was asked to charge). */
  chargesOf(mandateId: string): Promise<SandboxCharge[]>;
}

/** The part of a sandbox id after its prefix (`sbcs_…`, `sbm_…`). */
export const suffixOf = (id: string): string => id.slice(id.indexOf('_') + 1);

/** The mandate Pay on session `sessionId` opens, and its customer: derived, so a repeated Pay finds the same. */
export const sandboxMandateIdOf = (sessionId: string): string => `sbm_${suffixOf(sessionId)}`;
export const sandboxCustomerIdOf = (sessionId: string): string => `sbc_${suffixOf(sessionId)}`;
