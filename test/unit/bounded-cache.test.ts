import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../functions/bounded-cache.ts';

describe('the bounded cache', () => {
  it('drops the least recently used entry once it holds more than its size', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1).set('b', 2);

    cache.set('c', 3);

    expect([cache.has('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([false, 2, 3, 2]);
  });

  it('counts a read as a use, so an entry read often stays', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1).set('b', 2);

    cache.get('a');
    cache.set('c', 3);

    expect([cache.get('a'), cache.has('b'), cache.get('c')]).toEqual([1, false, 3]);
  });

  it('peeks without counting a use', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1).set('b', 2);

    expect(cache.peek('a')).toBe(1);
    cache.set('c', 3);

    expect([cache.has('a'), cache.has('b')]).toEqual([false, true]);
  });

  it('replaces the entry of a key already held, as its most recent', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1).set('b', 2).set('a', 10);

    cache.set('c', 3);

    expect([cache.get('a'), cache.has('b'), cache.size]).toEqual([10, false, 2]);
  });

  it('deletes an entry only while it is still the given one, when asked so', () => {
    const cache = new BoundedCache<string, { n: number }>(4);
    const first = { n: 1 };
    cache.set('a', first);
    cache.set('a', { n: 2 });

    expect(cache.delete('a', first)).toBe(false);
    expect(cache.get('a')).toEqual({ n: 2 });
    expect(cache.delete('a')).toBe(true);
    expect(cache.has('a')).toBe(false);
  });

  it('keeps an entry whose value is undefined apart from an absent one', () => {
    const cache = new BoundedCache<string, undefined>(1);
    cache.set('a', undefined);

    expect([cache.has('a'), cache.get('a'), cache.size]).toEqual([true, undefined, 1]);
  });

  it('prunes the entries its caller judges stale, and only those', () => {
    const cache = new BoundedCache<string, { until: number }>(4);
    cache.set('a', { until: 10 }).set('b', { until: 30 }).set('c', { until: 5 });

    cache.prune(({ until }) => until <= 20);

    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.size]).toEqual([false, true, false, 1]);
  });

  it('refuses a size below one', () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
    expect(() => new BoundedCache(1.5)).toThrow(RangeError);
  });
});
