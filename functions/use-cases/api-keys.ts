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

/** Issues a key for (account, mode), creating the account-mode's webhook secret if it has none yet. */
export async function issueApiKey(
  stores: { keys: ApiKeyRepository; secrets: SigningSecretStore },
  account: string,
  mode: Mode,
  now = new Date(),
): Promise<IssuedApiKey> {
  const webhookSecret = await stores.secrets.ensureWebhookSecret(account, mode, generateWebhookSecret());
  const { key, record } = generateApiKey(account, mode, now);
  await stores.keys.put(record);
  return { api_key: key, key_id: record.key_id, account, mode, webhook_secret: webhookSecret };
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
