import { readFileSync } from 'node:fs';
import type { SecretCipher } from '../../ports/secret-cipher.ts';
import { open, seal } from './aes-gcm.ts';

const PREFIX = 'local1.';

/**
 * Runs before every use of a local key: the local stack installs one that refuses functions not granted the
 * signing key (lib/local/permissions.ts), as IAM refuses `kms:Decrypt` on AWS.
 */
export const localKeyUseChecks: ((operation: 'encrypt' | 'decrypt') => void)[] = [];

/**
 * The local stack's stand-in for KMS: a 32-byte key in a `0600` file under the data folder, read on first use.
 * Same sealing as the KMS envelope (AES-256-GCM, context as AAD), without the envelope.
 */
export class FileKeyCipher implements SecretCipher {
  private readonly file: string;
  private key: Uint8Array | undefined;

  constructor(file: string) {
    this.file = file;
  }

  async encrypt(plaintext: string, context: Record<string, string>): Promise<string> {
    for (const check of localKeyUseChecks) check('encrypt');
    return `${PREFIX}${seal(this.keyBytes(), plaintext, context)}`;
  }

  async decrypt(ciphertext: string, context: Record<string, string>): Promise<string> {
    for (const check of localKeyUseChecks) check('decrypt');
    if (!ciphertext.startsWith(PREFIX)) throw new Error('Not a locally sealed secret');
    return open(this.keyBytes(), ciphertext.slice(PREFIX.length), context);
  }

  private keyBytes(): Uint8Array {
    this.key ??= Buffer.from(readFileSync(this.file, 'utf8').trim(), 'base64');
    if (this.key.length !== 32) throw new Error(`${this.file} does not hold a 32-byte key`);
    return this.key;
  }
}
