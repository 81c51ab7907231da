import type { ApiKeyRecord } from '../domain/api-key.ts';
import type { Mode } from '../domain/principal.ts';

/** API keys (stored by hash only) and the per-(account, mode) webhook signing secret. */
export interface ApiKeyRepository {
  put(record: ApiKeyRecord): Promise<void>;
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  listByAccount(account: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns the updated record, or undefined when there is no such key. */
  revoke(keyId: string, at: Date): Promise<ApiKeyRecord | undefined>;
  /** Stores `candidate` as the account-mode's webhook secret unless one exists; returns the current one. */
  ensureWebhookSecret(account: string, mode: Mode, candidate: string): Promise<string>;
  getWebhookSecret(account: string, mode: Mode): Promise<string | undefined>;
  /**
   * The secrets webhooks are signed with at `now`: the current one first, then the previous one while its
   * overlap after a rotation lasts. Empty when the account-mode has none.
   */
  getSigningSecrets(account: string, mode: Mode, now: Date): Promise<string[]>;
  /** Makes `candidate` the current secret; the old one keeps signing until `previousUntil`. */
  rotateWebhookSecret(account: string, mode: Mode, candidate: string, previousUntil: Date): Promise<void>;
}
