/**
 * The one bounded cache of functions/: at most `maxSize` entries, the least recently used dropped first, so a warm
 * container's memory stays bounded however many tenants, keys or endpoints it meets. It keeps no clock: an entry
 * that expires carries its own time (`until`, `at`), and its user judges it, with the `now` it was given.
 *
 * A cache is an instance, built once per container by the composition root (functions/dependencies.ts) or by the
 * adapter that owns it, and handed to the code that uses it: never module state, so a test builds its own.
 */
export class BoundedCache<K, V> {
  readonly maxSize: number;
  private readonly entries = new Map<K, V>();

  constructor(maxSize: number) {
    if (!Number.isInteger(maxSize) || maxSize < 1)
      throw new RangeError(`A cache holds 1 entry or more, not ${maxSize}`);
    this.maxSize = maxSize;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The entry of `key` without making it recently used. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Stores `value` as the most recently used entry, dropping the least recently used beyond `maxSize`. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxSize) {
      for (const oldest of this.entries.keys()) {
        this.entries.delete(oldest);
        if (this.entries.size <= this.maxSize) break;
      }
    }
    return this;
  }

  /** Removes `key`; with `ifValue`, only while that is still its entry (a newer one is kept). */
  delete(key: K, ifValue?: V): boolean {
    if (ifValue !== undefined && this.entries.get(key) !== ifValue) return false;
    return this.entries.delete(key);
  }

  /** Removes every entry `stale` says is past its use (an expired secret need not wait to be the oldest). */
  prune(stale: (value: V, key: K) => boolean): void {
    for (const [key, value] of this.entries) if (stale(value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
