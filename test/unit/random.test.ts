import { describe, expect, it } from 'vitest';
import { newId } from '../../functions/domain/ids.ts';
import { randomBase62 } from '../../functions/domain/random.ts';

describe('randomBase62', () => {
  it('draws fresh base62 characters across many refills of its byte pool, never the same bytes twice', () => {
    // 2,000 ids of 24 characters use about 12 pools of 4 KiB: a refill that handed out old bytes would repeat ids.
    const ids = Array.from({ length: 2000 }, () => newId('pl'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^pl_[0-9A-Za-z]{24}$/);
  });

  it('is uniform over the 62 characters (rejection sampling, no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 1,000 expected per character. Taking every byte modulo 62 would favour the first 8 characters (5 byte
    // values each against 4): about 1,210 of them and 970 of the others, a chi-square near 400. Fair draws
    // exceed 140 (61 degrees of freedom) less than once in ten million runs.
    const chiSquare = [...counts.values()].reduce((sum, count) => sum + (count - 1000) ** 2 / 1000, 0);
    expect(chiSquare).toBeLessThan(140);
  });
});
