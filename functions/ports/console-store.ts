import type { AuditEntry, ConsoleSession, SignInGrant } from '../domain/console-access.ts';
import type { Mode } from '../domain/principal.ts';

/**
 * What the merchant console keeps: one-time sign-in links, sessions and the audit log (each account's, and the
 * attempts that name none under `NO_ACCOUNT`). Links and sessions are stored under the SHA-256 of their secret,
 * never the secret itself, and expire by TTL.
 */
export interface ConsoleStore {
  /** Stores a sign-in link's grant until `expiresAt`. */
  saveSignInLink(tokenHash: string, grant: SignInGrant, expiresAt: Date): Promise<void>;
  /** A link's grant and end, expired or not, while it is stored (unused); undefined when there is none. */
  findSignInLink(tokenHash: string): Promise<{ grant: SignInGrant; expires_at: string } | undefined>;
  /**
   * Consumes the link in one conditional write: its grant the first time while it is valid; undefined when it is
   * unknown, already used or expired, so that two uses at once cannot both succeed.
   */
  consumeSignInLink(tokenHash: string, now: Date): Promise<SignInGrant | undefined>;
  saveSession(session: ConsoleSession): Promise<void>;
  /** The stored session, live or not (the caller checks its expiry). */
  getSession(idHash: string): Promise<ConsoleSession | undefined>;
  /** Moves the session's expiry and, when given, its mode. */
  updateSession(idHash: string, change: { expires_at: string; mode?: Mode }): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Writes a new audit entry (never over another). */
  recordAudit(entry: AuditEntry): Promise<void>;
  /** Replaces an entry written `attempted` with its outcome: once, so no outcome is written over another. */
  settleAudit(entry: AuditEntry): Promise<void>;
  /** The account's latest audit entries (both modes), newest first. */
  listAudit(account: string, limit: number): Promise<AuditEntry[]>;
}
