import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { BoundedCache } from '../../bounded-cache.ts';
import type { SecretCipher } from '../../ports/secret-cipher.ts';
import { open, seal } from './aes-gcm.ts';

const PREFIX = 'kms1.';

/**
 * KMS envelope encryption: each secret is sealed (AES-256-GCM) under a fresh data key from `GenerateDataKey`,
 * stored beside it encrypted by the KMS key; `context` is both the KMS encryption context and the AAD. Only
 * principals allowed `kms:Decrypt` on the key (the delivery function, operators running the keys CLI) can open
 * it. Decrypted data keys are kept for `cacheMs` (5 minutes by default), so a warm function asks KMS once per
 * secret per cache period, not once per webhook.
 *
 * Stored form: `kms1.<encrypted data key>.<iv>.<ciphertext and tag>`, base64url.
 */
export class KmsCipher implements SecretCipher {
  private readonly client: () => KMSClient;
  private readonly keyId: string | undefined;
  private readonly cacheMs: number;
  private readonly now: () => number;
  /** Data keys opened, by sealed key and context, at most 1000: one forgotten is asked of KMS again. */
  private readonly dataKeys = new BoundedCache<string, { key: Promise<Uint8Array>; until: number }>(1000);

  /** `keyId` is needed to encrypt only: a KMS ciphertext names its key. */
  constructor(options: {
    client: () => KMSClient;
    keyId: string | undefined;
    cacheMs?: number;
    now?: () => number;
  }) {
    this.client = options.client;
    this.keyId = options.keyId;
    this.cacheMs = options.cacheMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  async encrypt(plaintext: string, context: Record<string, string>): Promise<string> {
    if (!this.keyId) throw new Error('No KMS key to encrypt with (SIGNING_KEY_ID)');
    const { Plaintext, CiphertextBlob } = await this.client().send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (!Plaintext || !CiphertextBlob) throw new Error('KMS returned no data key');
    try {
      return `${PREFIX}${Buffer.from(CiphertextBlob).toString('base64url')}.${seal(Plaintext, plaintext, context)}`;
    } finally {
      Plaintext.fill(0);
    }
  }

  async decrypt(ciphertext: string, context: Record<string, string>): Promise<string> {
    if (!ciphertext.startsWith(PREFIX)) throw new Error('Not a KMS-sealed secret');
    const rest = ciphertext.slice(PREFIX.length);
    const separator = rest.indexOf('.');
    const encryptedKey = rest.slice(0, separator);
    return open(await this.dataKey(encryptedKey, context), rest.slice(separator + 1), context);
  }

  private dataKey(encryptedKey: string, context: Record<string, string>): Promise<Uint8Array> {
    const cacheKey = `${encryptedKey}|${JSON.stringify(context)}`;
    const cached = this.dataKeys.get(cacheKey);
    if (cached && cached.until > this.now()) return cached.key;
    const key = this.client()
      .send(
        new DecryptCommand({
          CiphertextBlob: Buffer.from(encryptedKey, 'base64url'),
          EncryptionContext: context,
          ...(this.keyId ? { KeyId: this.keyId } : {}),
        }),
      )
      .then(({ Plaintext }) => {
        if (!Plaintext) throw new Error('KMS returned no plaintext');
        return Plaintext;
      });
    const entry = { key, until: this.now() + this.cacheMs };
    key.catch(() => this.dataKeys.delete(cacheKey, entry));
    this.dataKeys.prune(({ until }) => until <= this.now());
    this.dataKeys.set(cacheKey, entry);
    return key;
  }
}
