import { describe, expect, it } from 'vitest';
import {
  isId,
  isTimeOrderedId,
  newId,
  timeOrderedId,
  timeOrderedIdFloor,
} from '../../functions/domain/ids.ts';
import { randomBase62 } from '../../functions/domain/random.ts';

describe('randomBase62', () => {
  it('never hands out the same pool bytes twice: no run of 32 characters repeats across ten refills', () => {
    // 40,000 characters take about ten pools of 4 KiB. A pool handed out again (not refilled) replays the same
    // characters in the same order; fresh bytes repeat a 32-character run with a probability near 62^-32.
    const drawn = randomBase62(40_000);
    const runs = new Set<string>();
    for (let start = 0; start + 32 <= drawn.length; start += 1) runs.add(drawn.slice(start, start + 32));
    expect(runs.size).toBe(drawn.length - 31);
    expect(newId('pl')).toMatch(/^pl_[0-9A-Za-z]{24}$/);
  });

  it('is uniform over the 62 characters (rejection sampling, no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 1,000 expected per character. Taking every byte modulo 62 would favour the first 8 characters (5 byte
    // values each against 4): about 1,210 of them and 970 of the others, a χ² statistic near 400. Fair draws
    // exceed 140 (61 degrees of freedom) less than once in ten million runs.
    const chi2 = [...counts.values()].reduce((sum, count) => sum + (count - 1000) ** 2 / 1000, 0);
    expect(chi2).toBeLessThan(140);
  });
});

describe('timeOrderedId', () => {
  it('sorts as the times it was made at, at or above the floor of its time, and is told from a random id', () => {
    const times = [
      '2026-11-28T10:00:00.000Z',
      '2026-11-28T10:00:00.001Z',
      '2026-12-01T00:00:00Z',
      '2099-01-01T00:00:00Z',
    ];
    const ids = times.map((at) => timeOrderedId('pay', new Date(at)));
    expect([...ids].sort()).toEqual(ids);
    for (const [index, id] of ids.entries()) {
      expect(isId('pay', id)).toBe(true);
      expect(isTimeOrderedId('pay', id)).toBe(true);
      expect(id >= timeOrderedIdFloor('pay', new Date(times[index] as string))).toBe(true);
      expect(id < timeOrderedIdFloor('pay', new Date(Date.parse(times[index] as string) + 1))).toBe(true);
    }
    expect(isTimeOrderedId('pay', newId('pay'))).toBe(false);
  });
});
