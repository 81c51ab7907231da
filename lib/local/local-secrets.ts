import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The local stand-in for Secrets Manager: one JSON file (see functions/adapters/secrets/file-secret-store.ts). */
export const LOCAL_SECRETS_FILE = 'secrets.json';
export const LOCAL_SANDBOX_SECRET_NAME = 'payment-links/local/sandbox';
export const LOCAL_PSP_SECRET_PREFIX = 'payment-links/local/psp/';
/** The HMAC key of keyed links' ids (functions/config.ts `LINK_ID_SECRET`), kept with the data like the rest. */
const LOCAL_LINK_ID_SECRET_NAME = 'payment-links/local/link-ids';
/** The local stand-in for the KMS key that seals webhook signing secrets (functions/adapters/secrets/file-key-cipher.ts). */
export const LOCAL_SIGNING_KEY_FILE = 'signing-key';

/**
 * Creates the local secrets file (under `dataDir`, or a fresh temporary folder when the stack runs in memory)
 * with a generated sandbox signing secret, and the key file signing secrets are sealed with, and returns the
 * configuration that points the functions at them.
 */
export function prepareLocalSecrets(dataDir: string | undefined): Record<string, string> {
  const folder = dataDir ?? mkdtempSync(join(tmpdir(), 'payment-links-secrets-'));
  const file = join(folder, LOCAL_SECRETS_FILE);
  const keyFile = join(folder, LOCAL_SIGNING_KEY_FILE);
  if (!existsSync(keyFile)) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  const secrets: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const missing = [LOCAL_SANDBOX_SECRET_NAME, LOCAL_LINK_ID_SECRET_NAME].filter((name) => !secrets[name]);
  for (const name of missing) secrets[name] = randomBytes(32).toString('base64url');
  if (missing.length) writeLocalSecrets(file, secrets);
  return {
    LINK_ID_SECRET: secrets[LOCAL_LINK_ID_SECRET_NAME] as string,
    LOCAL_SIGNING_KEY_FILE: keyFile,
    LOCAL_SECRETS_FILE: file,
    SANDBOX_SECRET_NAME: LOCAL_SANDBOX_SECRET_NAME,
    PSP_SECRET_PREFIX: LOCAL_PSP_SECRET_PREFIX,
  };
}

export function writeLocalSecrets(file: string, secrets: Record<string, string>): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
