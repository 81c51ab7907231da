/**
 * Encrypts small secrets (webhook signing secrets) for storage, under a key only some functions may use: KMS on
 * AWS (functions/adapters/secrets/kms-cipher.ts), a key file in the local stack
 * (functions/adapters/secrets/file-key-cipher.ts). `context` binds a ciphertext to what it protects (say the
 * account and mode of a signing secret): it decrypts under the same context only.
 */
export interface SecretCipher {
  encrypt(plaintext: string, context: Record<string, string>): Promise<string>;
  /** Throws when the ciphertext was not made by this cipher's key, or under another context. */
  decrypt(ciphertext: string, context: Record<string, string>): Promise<string>;
}
