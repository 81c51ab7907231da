import { describe, expect, it } from 'vitest';
import { type ApiKeyRecord, generateApiKey } from '../../functions/domain/api-key.ts';
import { UnauthorizedError } from '../../functions/domain/errors.ts';
import type { ApiKeyRepository } from '../../functions/ports/api-key-repository.ts';
import { ApiKeyAuthenticator } from '../../functions/use-cases/authenticate.ts';

/** Keys in memory, counting the reads the authenticator makes. */
function keyStore() {
  const records = new Map<string, ApiKeyRecord>();
  const store = {
    reads: 0,
    put: async (record: ApiKeyRecord) => void records.set(record.key_id, record),
    get: async (keyId: string) => {
      store.reads++;
      return records.get(keyId);
    },
    listByAccount: async () => [...records.values()],
    revoke: async (keyId: string, at: Date) => {
      const record = records.get(keyId);
      if (record) records.set(keyId, { ...record, status: 'revoked', revoked_at: at.toISOString() });
      return records.get(keyId);
    },
  } satisfies ApiKeyRepository & { reads: number };
  return store;
}

describe('ApiKeyAuthenticator', () => {
  const start = Date.parse('2026-11-23T12:00:00Z');

  it('reads a key once per cache period, and again once the period is over', async () => {
    const keys = keyStore();
    const { key, record } = generateApiKey('acme', 'live', new Date(start));
    await keys.put(record);
    let now = start;
    const authenticator = new ApiKeyAuthenticator(keys, { cacheTtlMs: 60_000, now: () => now });

    for (let second = 0; second < 60; second++) {
      now = start + second * 1000;
      await expect(authenticator.authenticate(`Bearer ${key}`)).resolves.toEqual({
        account: 'acme',
        mode: 'live',
      });
    }
    expect(keys.reads).toBe(1);
    now = start + 60_000;
    await authenticator.authenticate(`Bearer ${key}`);
    expect(keys.reads).toBe(2);
  });

  it('refuses a revoked key once its cached entry lapses, and keeps refusing it', async () => {
    const keys = keyStore();
    const { key, record } = generateApiKey('acme', 'test', new Date(start));
    await keys.put(record);
    let now = start;
    const authenticator = new ApiKeyAuthenticator(keys, { cacheTtlMs: 60_000, now: () => now });
    await authenticator.authenticate(`Bearer ${key}`);
    await keys.revoke(record.key_id, new Date(start));

    now = start + 60_000;
    await expect(authenticator.authenticate(`Bearer ${key}`)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(authenticator.authenticate(`Bearer ${key}`)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(keys.reads).toBe(3);
  });

  it('refuses a look-alike of a cached key (checksum, mode, one character) without a read', async () => {
    const keys = keyStore();
    const { key, record } = generateApiKey('acme', 'test', new Date(start));
    await keys.put(record);
    const authenticator = new ApiKeyAuthenticator(keys, { cacheTtlMs: 60_000, now: () => start });
    await authenticator.authenticate(`Bearer ${key}`);

    const lastChar = key.at(-1) === 'a' ? 'b' : 'a';
    for (const lookalike of [
      `${key.slice(0, -1)}${lastChar}`,
      key.replace('svc_test_', 'svc_live_'),
      `${key}x`,
      'svc_test_short',
    ]) {
      await expect(authenticator.authenticate(`Bearer ${lookalike}`)).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
    }
    expect(keys.reads).toBe(1);
  });

  it('never caches a key it does not know, so a key issued a moment later works at once', async () => {
    const keys = keyStore();
    const { key, record } = generateApiKey('acme', 'test', new Date(start));
    const authenticator = new ApiKeyAuthenticator(keys, { cacheTtlMs: 60_000, now: () => start });
    await expect(authenticator.authenticate(`Bearer ${key}`)).rejects.toBeInstanceOf(UnauthorizedError);
    await keys.put(record);
    await expect(authenticator.authenticate(`Bearer ${key}`)).resolves.toEqual({
      account: 'acme',
      mode: 'test',
    });
  });
});
