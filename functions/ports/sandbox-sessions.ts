import type { Amount } from '../domain/money.ts';
import type { Mode } from '../domain/principal.ts';
import type { Recurring } from '../domain/subscription-schedule.ts';

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
  /** `processing`: Pay started a payment that succeeds at `settles_at` (a `--simulate processing` connection). */
  status: 'open' | 'processing' | 'complete' | 'failed' | 'expired';
  /** Set when Pay completed the session, or started its payment. */
  payment_reference: string | null;
  /**
   * How long a payment started by Pay stays under way before it succeeds; absent: Pay succeeds at once. Set at
   * creation by a `processing` connection (the hosted page cannot read connections).
   */
  processing_ms?: number | undefined;
  /** When the payment under way succeeds (a `processing` session). */
  settles_at?: string | undefined;
  /**
   * The probability that Pay succeeds; otherwise Pay declines as a PSP would. Set at creation by a connection
   * with `--success-rate` (the hosted page cannot read connections); absent: 1.
   */
  success_rate?: number | undefined;
  /**
   * The sandbox's own code a decline of this session reports (its descriptor's `declines`); set at creation by a
   * `--simulate decline_*` connection; absent: a decline without a reason.
   */
  decline_code?: string | undefined;
  /** Attempts the buyer declined. */
  declined_attempts: number;
  created_at: string;
  expires_at: string;
  /** The buyer's locale the checkout passed (absent on older sessions: the browser's language). */
  locale?: string | undefined;
  /**
   * The session opens a mandate (a subscription link or an update link, docs/subscriptions.md#the-sandbox): Pay
   * leaves one behind, `sbm_…` derived from the session's id; absent on every other session.
   */
  opens_mandate?: SandboxMandateRequest | undefined;
}

/** What a session that opens a mandate shows the buyer on the sandbox page, and what Pay then stores. */
export interface SandboxMandateRequest {
  subscription_id: string;
  without_charge: boolean;
  period_amount: Amount;
  recurring: Recurring | null;
}

/** The sandbox PSP's own storage. */
export interface SandboxSessionStore {
  create(session: SandboxSession): Promise<void>;
  get(id: string): Promise<SandboxSession | undefined>;
  /** Marks an open session complete with this reference; returns it as stored afterwards (complete or not). */
  complete(id: string, paymentReference: string, now: Date): Promise<SandboxSession | undefined>;
  /**
   * Starts the payment of an open session, succeeding at `settlesAt`: the session is `processing` until then;
   * returns it as stored afterwards (processing or not).
   */
  startProcessing(
    id: string,
    paymentReference: string,
    settlesAt: Date,
    now: Date,
  ): Promise<SandboxSession | undefined>;
  /** Completes a processing session whose `settles_at` has passed; returns it as stored afterwards. */
  settle(id: string, now: Date): Promise<SandboxSession | undefined>;
  /** Fails an open session: the buyer declined (the link stays open for another attempt). */
  decline(id: string): Promise<void>;
  /** Marks an open session expired; false when it was not open (paid, declined, expired or unknown). */
  expire(id: string): Promise<boolean>;
}
