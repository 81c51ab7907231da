import { existsSync, readFileSync } from 'node:fs';
import type { SecretStore } from '../../ports/secret-store.ts';

/**
 * Runs before every read of a local secret: the local stack installs one that refuses functions not granted that
 * secret (lib/local/permissions.ts), as IAM refuses `secretsmanager:GetSecretValue` on AWS.
 */
export const localSecretReadChecks: ((name: string) => void)[] = [];

/**
 * The local stack's stand-in for Secrets Manager: a JSON object `{ "<secret name>": "<value>" }` in a file the
 * local stack creates (mode 0600) under its data folder. Read on every call: it is tiny, and `npm run psp`
 * may change it while the stack runs.
 */
export class FileSecretStore implements SecretStore {
  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  async get(name: string): Promise<string | undefined> {
    for (const check of localSecretReadChecks) check(name);
    if (!existsSync(this.path)) return undefined;
    const secrets = JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, unknown>;
    const value = Object.hasOwn(secrets, name) ? secrets[name] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
}
