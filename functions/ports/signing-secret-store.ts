import type { Mode } from '../domain/principal.ts';

/**
 * The per-(account, mode) webhook signing secret, encrypted at rest (docs/security.md#webhook-signing-secrets).
 * Only the delivery function and the keys CLI hold an implementation that can open it.
 */
export interface SigningSecretStore {
  /** Stores `candidate` as the account-mode's webhook secret unless one exists; returns the current one. */
  ensureWebhookSecret(account: string, mode: Mode, candidate: string): Promise<string>;
  /**
   * Seals `candidate` as the account-mode's webhook secret when it has none (an earlier version's plaintext one
   * counts); whether it did. Opens nothing, so a holder of a seal-only key can call it.
   */
  createWebhookSecretIfNone(account: string, mode: Mode, candidate: string): Promise<boolean>;
  getWebhookSecret(account: string, mode: Mode): Promise<string | undefined>;
  /**
   * The secrets webhooks are signed with at `now`: the current one first, then the previous one while its
   * overlap after a rotation lasts. Empty when the account-mode has none.
   */
  getSigningSecrets(account: string, mode: Mode, now: Date): Promise<string[]>;
  /** Makes `candidate` the current secret; the old one keeps signing until `previousUntil`. */
  rotateWebhookSecret(account: string, mode: Mode, candidate: string, previousUntil: Date): Promise<void>;
}
