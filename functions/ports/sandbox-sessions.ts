import type { Amount } from '../domain/money.ts';
import type { Mode } from '../domain/principal.ts';

/** A checkout session of the built-in sandbox PSP: what its hosted page shows and what Pay completes. */
export interface SandboxSession {
  id: string;
  /** The connection that created it, and our payment it is the attempt of (absent on older sessions). */
  connection_id?: string | undefined;
  payment_id?: string | undefined;
  link_id: string;
  account: string;
  mode: Mode;
  amount: Amount;
  description: string | null;
  success_url: string;
  cancel_url: string;
  status: 'open' | 'complete' | 'failed' | 'expired';
  /** Set when Pay completed the session. */
  payment_reference: string | null;
  /** Attempts the buyer declined. */
  declined_attempts: number;
  created_at: string;
  expires_at: string;
}

/** The sandbox PSP's own storage. */
export interface SandboxSessionStore {
  create(session: SandboxSession): Promise<void>;
  get(id: string): Promise<SandboxSession | undefined>;
  /** Marks an open session complete with this reference; returns it as stored afterwards (complete or not). */
  complete(id: string, paymentReference: string, now: Date): Promise<SandboxSession | undefined>;
  /** Fails an open session: the buyer declined (the link stays open for another attempt). */
  decline(id: string): Promise<void>;
  /** Marks an open session expired; false when it was not open (paid, declined, expired or unknown). */
  expire(id: string): Promise<boolean>;
}
