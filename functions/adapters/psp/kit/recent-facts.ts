import { BoundedCache } from '../../../bounded-cache.ts';

/**
 * Facts a PSP stated in a notification that verified, kept for the `retrieveSession` / `retrieveRefund` that
 * the same invocation makes right after, when the PSP has no API to fetch them or to spare a second fetch of
 * what was just fetched (a notification verified by looking its payment up). Bounded, and each fact is short-lived.
 */
export class RecentFacts<T> {
  private readonly facts: BoundedCache<string, { value: T; at: number }>;
  private readonly maxAgeMs: number;

  constructor(options: { maxAgeMs: number; maxSize: number }) {
    this.facts = new BoundedCache(options.maxSize);
    this.maxAgeMs = options.maxAgeMs;
  }

  set(key: string, value: T): void {
    this.facts.set(key, { value, at: Date.now() });
  }

  get(key: string): T | undefined {
    // Read without refreshing: a fact ages from when it was learnt, and the oldest learnt goes first.
    const fact = this.facts.peek(key);
    if (!fact) return undefined;
    if (Date.now() - fact.at > this.maxAgeMs) {
      this.facts.delete(key);
      return undefined;
    }
    return fact.value;
  }

  take(key: string): T | undefined {
    const value = this.get(key);
    this.facts.delete(key);
    return value;
  }
}
