import { BoundedCache } from '../bounded-cache.ts';
import { hashApiKey, hashesMatch, parseApiKey } from '../domain/api-key.ts';
import { UnauthorizedError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ApiKeyRepository } from '../ports/api-key-repository.ts';

/** Active keys a warm container remembers at most; a key forgotten is read again (one `GetItem`). */
export const MAX_CACHED_KEYS = 10_000;

/**
 * Resolves `Authorization: Bearer <key>` to the (account, mode) it belongs to. Active keys are cached inside a
 * warm container for `cacheTtlMs` (at most 60 s, since a revoked key must be refused everywhere within a minute:
 * README.md#keys-and-psps), so a warm request costs no key read and a revocation takes effect within that time. Unknown keys are never cached, so a new key works at once.
 */
/** Who calls the API: the key's (account, mode), and the key by its id and the prefix a person recognises. */
export interface ApiCaller {
  principal: Principal;
  key: { id: string; display_prefix: string };
}

export class ApiKeyAuthenticator {
  private readonly keys: ApiKeyRepository;
  private readonly cacheTtlMs: number;
  private readonly now: () => number;
  private readonly cache: BoundedCache<string, { caller: ApiCaller; until: number }>;

  constructor(
    keys: ApiKeyRepository,
    options: { cacheTtlMs: number; now?: () => number; maxCachedKeys?: number },
  ) {
    this.keys = keys;
    this.cacheTtlMs = options.cacheTtlMs;
    this.now = options.now ?? Date.now;
    this.cache = new BoundedCache(options.maxCachedKeys ?? MAX_CACHED_KEYS);
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    return (await this.identify(authorization)).principal;
  }

  /** The (account, mode) of `Authorization: Bearer <key>`, and which key it is (what the audit log names). */
  async identify(authorization: string | undefined): Promise<ApiCaller> {
    const key = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    if (!key) throw new UnauthorizedError();
    // A warm key is found by its hash alone: only keys that passed every check below are ever cached.
    const hash = hashApiKey(key);
    const cached = this.cache.get(hash);
    if (cached && cached.until > this.now()) return cached.caller;

    const parsed = parseApiKey(key, hash);
    if (!parsed) throw new UnauthorizedError();
    const record = await this.keys.get(parsed.keyId);
    if (
      record?.status !== 'active' ||
      record.mode !== parsed.mode ||
      !hashesMatch(record.hash, parsed.hash)
    ) {
      this.cache.delete(parsed.hash);
      throw new UnauthorizedError();
    }
    const caller: ApiCaller = {
      principal: { account: record.account, mode: record.mode },
      key: { id: record.key_id, display_prefix: record.display_prefix },
    };
    this.cache.set(parsed.hash, { caller, until: this.now() + this.cacheTtlMs });
    return caller;
  }
}
