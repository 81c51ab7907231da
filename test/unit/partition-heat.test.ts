import { describe, expect, it } from 'vitest';
import { OUTCOME_SHARDS } from '../../functions/ports/outcome-counters.ts';
import { armHeat, counterHeat } from '../bench/outcome-counter-heat.ts';
import { ceilingOf, heatByPattern, patternOf } from '../bench/partition-heat.ts';

describe('partition heat (test/bench/partition-heat.ts)', () => {
  it("scopes a key by what it names: a link's own, a merchant's, or shared by all", () => {
    expect(patternOf('LINK#pl_abcdefghijklmnopqrstuvwx', 'acme')).toEqual({
      pattern: 'LINK#<pl>',
      scope: 'link',
    });
    expect(patternOf('LINKS#acme#test#3', 'acme')).toEqual({
      pattern: 'LINKS#<account>#test#<shard>',
      scope: 'merchant',
      shard: 3,
    });
    expect(patternOf('APIKEY#key_abcdefghijklmnop', 'acme').scope).toBe('merchant');
    expect(patternOf('OUTBOX#17', 'acme')).toEqual({ pattern: 'OUTBOX#<shard>', scope: 'shared', shard: 17 });
    expect(patternOf('IDEMPOTENCY#acme#test#Zk3x9QmV0aLr2b7YcT1uWe', 'acme').scope).toBe('link');
  });

  it("divides a key's units by its shards and, for a merchant's keys, by the merchants sharing the rate", () => {
    const [listing, outbox] = heatByPattern(
      [
        { target: 'listings', key: 'LINKS#acme#test#0', wru: 1, rru: 0 },
        { target: 'outbox', key: 'OUTBOX#5', wru: 1, rru: 0 },
        { target: 'outbox', key: 'OUTBOX#9', wru: 1, rru: 0 },
      ],
      'acme',
      (pattern) => (pattern.startsWith('OUTBOX') ? 60 : 5),
    );
    expect(outbox).toMatchObject({ pattern: 'OUTBOX#<shard>', wru: 2, shards: 60 });
    expect(ceilingOf(outbox as never, 1)).toBe(30_000);
    expect(ceilingOf(listing as never, 1)).toBe(5_000);
    expect(ceilingOf(listing as never, 10_000)).toBeCloseTo(50_000_000);
    expect(
      ceilingOf({ target: 'table', pattern: 'LINK#<pl>', scope: 'link', shards: 1, wru: 9, rru: 9 }, 1),
    ).toBe(Number.POSITIVE_INFINITY);
  });

  it('bounds the outcome counters by one ADD per outcome and granularity, and their reads by the cache', () => {
    const model = {
      shards: 8,
      flushMs: 5_000,
      cacheMs: 10_000,
      outcomesPerLink: 2,
      segments: 4,
      readerMs: 400,
      itemBytes: 110,
    };
    // 3,000 links a second on one connection: 12,000 ADDs a second over 8 shards.
    expect(counterHeat(model, 3_000, 1)).toMatchObject({ wruPerPartition: 1_500, ceiling: 2_000 });
    // 1,200 checkout containers read it at most every 10 s: 120 reads of 2.5 units a shard.
    expect(counterHeat(model, 3_000, 1).rruPerPartition).toBe(300);
    const deployed = { ...model, shards: OUTCOME_SHARDS };
    expect(counterHeat(deployed, 3_000, 1).ceiling).toBeGreaterThanOrEqual(3_000);
    expect(counterHeat(deployed, 20_000, 10_000).ceiling).toBeGreaterThanOrEqual(20_000);
  });

  it("bounds the arms' counters of optimize rules by one ADD per outcome, a merchant's links all meeting in them", () => {
    // 3,000 optimized links a second of one merchant: 6,000 ADDs a second over 16 shards.
    expect(armHeat({ shards: OUTCOME_SHARDS, outcomesPerLink: 2 }, 3_000, 1)).toEqual({
      wruPerPartition: 375,
      ceiling: 8_000,
    });
  });
});
