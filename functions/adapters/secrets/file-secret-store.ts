import { existsSync, readFileSync } from 'node:fs';
import type { SecretStore } from '../../ports/secret-store.ts';

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
    if (!existsSync(this.path)) return undefined;
    const secrets = JSON.parse(readFileSync(this.path, 'utf8')) as Record<string, unknown>;
    const value = Object.hasOwn(secrets, name) ? secrets[name] : undefined;
    return typeof value === 'string' ? value : undefined;
  }
}
