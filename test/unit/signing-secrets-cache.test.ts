import { describe, expect, it } from 'vitest';
import { cachedSigningSecrets, SIGNING_SECRETS_CACHE_MS } from '../../functions/use-cases/webhook-fan-out.ts';

/** A secret store that answers from `answers` in turn and counts the reads. */
function store(...answers: (string[] | Error)[]) {
  const source = {
    reads: 0,
    async getSigningSecrets() {
      const answer = answers[Math.min(source.reads++, answers.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer ?? [];
    },
  };
  return source;
}

describe('the signing-secret cache of the delivery function', () => {
  it('serves the records of one batch with a single read, and reads again once the minute is over', async () => {
    const source = store(['whsec_a'], ['whsec_b']);
    let clock = Date.parse('2026-11-22T12:00:00Z');
    const cache = cachedSigningSecrets(source, () => new Date(clock));
    const at = new Date(clock);

    const batch = await Promise.all(
      Array.from({ length: 10 }, () => cache.getSigningSecrets('acme', 'test', at)),
    );
    expect(batch).toEqual(Array.from({ length: 10 }, () => ['whsec_a']));
    expect(source.reads).toBe(1);

    clock += SIGNING_SECRETS_CACHE_MS + 1;
    expect(await cache.getSigningSecrets('acme', 'test', at)).toEqual(['whsec_b']);
    expect(source.reads).toBe(2);
  });

  it('keeps (account, mode) pairs apart', async () => {
    const source = store(['whsec_a']);
    const cache = cachedSigningSecrets(source, () => new Date());
    await cache.getSigningSecrets('acme', 'test', new Date());
    await cache.getSigningSecrets('acme', 'live', new Date());
    await cache.getSigningSecrets('other', 'test', new Date());
    expect(source.reads).toBe(3);
  });

  it('does not remember a failed or an empty read', async () => {
    const source = store(new Error('DynamoDB is down'), [], ['whsec_a']);
    const cache = cachedSigningSecrets(source, () => new Date());
    await expect(cache.getSigningSecrets('acme', 'test', new Date())).rejects.toThrow('DynamoDB is down');
    expect(await cache.getSigningSecrets('acme', 'test', new Date())).toEqual([]);
    expect(await cache.getSigningSecrets('acme', 'test', new Date())).toEqual(['whsec_a']);
    expect(await cache.getSigningSecrets('acme', 'test', new Date())).toEqual(['whsec_a']);
    expect(source.reads).toBe(3);
  });
});
