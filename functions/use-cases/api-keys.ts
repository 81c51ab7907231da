import { type ApiKeyRecord, generateApiKey, generateWebhookSecret } from '../domain/api-key.ts';
import type { Mode } from '../domain/principal.ts';
import type { ApiKeyRepository } from '../ports/api-key-repository.ts';
import type { SigningSecretStore } from '../ports/signing-secret-store.ts';

export interface IssuedApiKey {
  /** The whole key: shown once, never stored or retrievable again. */
  api_key: string;
  key_id: string;
  account: string;
  mode: Mode;
  /** The (account, mode)'s current webhook signing secret, created with its first key. */
  webhook_secret: string;
}

/** A new key: the whole key, shown once, and its stored record (hash only). */
export type CreatedApiKey = Pick<IssuedApiKey, 'api_key'> & { record: Omit<ApiKeyRecord, 'hash'> };

/**
 * Creates and stores a key for (account, mode): the one rule for a key's format, hash and storage, which
 * `issueApiKey` and `issueKeyWithoutSecret` both follow.
 */
export async function createApiKey(
  keys: ApiKeyRepository,
  account: string,
  mode: Mode,
  now = new Date(),
): Promise<CreatedApiKey> {
  const { key, record } = generateApiKey(account, mode, now);
  await keys.put(record);
  const { hash: _hash, ...shown } = record;
  return { api_key: key, record: shown };
}

/**
 * Issues a key for (account, mode), creating the account-mode's webhook secret if it has none yet, and returns
 * that secret too: for operators (`npm run keys`), whose tools may open it.
 */
export async function issueApiKey(
  stores: { keys: ApiKeyRepository; secrets: SigningSecretStore },
  account: string,
  mode: Mode,
  now = new Date(),
): Promise<IssuedApiKey> {
  const webhookSecret = await stores.secrets.ensureWebhookSecret(account, mode, generateWebhookSecret());
  const { api_key, record } = await createApiKey(stores.keys, account, mode, now);
  return { api_key, key_id: record.key_id, account, mode, webhook_secret: webhookSecret };
}

/**
 * Issues a key as the console does: like `issueApiKey`, the account-mode gets a webhook signing secret with its
 * first key (link webhooks are signed with it), but an existing one is neither opened nor returned. The console
 * never shows that secret, so its function holds a key that seals and cannot open
 * (docs/security.md#webhook-signing-secrets).
 */
export async function issueKeyWithoutSecret(
  stores: { keys: ApiKeyRepository; secrets: Pick<SigningSecretStore, 'createWebhookSecretIfNone'> },
  account: string,
  mode: Mode,
  now = new Date(),
): Promise<CreatedApiKey> {
  await stores.secrets.createWebhookSecretIfNone(account, mode, generateWebhookSecret());
  return createApiKey(stores.keys, account, mode, now);
}

/**
 * Revokes one of the account-mode's keys. Another account's key, or the other mode's, is not found (undefined)
 * exactly as if it did not exist.
 */
export async function revokeApiKey(
  repository: ApiKeyRepository,
  owner: { account: string; mode: Mode },
  keyId: string,
  now = new Date(),
): Promise<Omit<ApiKeyRecord, 'hash'> | undefined> {
  const existing = await repository.get(keyId);
  if (!existing || existing.account !== owner.account || existing.mode !== owner.mode) return undefined;
  const revoked = await repository.revoke(keyId, now);
  if (!revoked) return undefined;
  const { hash: _hash, ...shown } = revoked;
  return shown;
}

/** Keys of an account for display: never the key itself, which is not stored. */
export async function listApiKeys(
  repository: ApiKeyRepository,
  account: string,
): Promise<Omit<ApiKeyRecord, 'hash'>[]> {
  const records = await repository.listByAccount(account);
  return records.map(({ hash: _hash, ...shown }) => shown);
}

/** After a rotation the previous webhook secret keeps signing (alongside the new one) for this long. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Replaces the (account, mode)'s webhook signing secret. For the next 24 hours webhooks carry signatures by
 * both secrets, so the merchant can deploy the new one without losing a delivery.
 */
export async function rotateWebhookSecret(
  secrets: SigningSecretStore,
  account: string,
  mode: Mode,
  now = new Date(),
): Promise<{ webhook_secret: string; previous_valid_until: string }> {
  const secret = generateWebhookSecret();
  const previousUntil = new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS);
  await secrets.rotateWebhookSecret(account, mode, secret, previousUntil);
  return { webhook_secret: secret, previous_valid_until: previousUntil.toISOString() };
}
