import { describe, expect, it } from 'vitest';
import type { OutcomeBucket } from '../../functions/domain/outcomes.ts';
import { OUTCOME_SHARDS, type OutcomeCounterStore } from '../../functions/ports/outcome-counters.ts';
import { ObservedOutcomes, OutcomeRecorder } from '../../functions/use-cases/outcome-recording.ts';
import { seededRandom } from '../../lib/local/seeded-random.ts';

/** A store that keeps what it is given and counts the writes each item takes in each second. */
function recordingStore() {
  const items = new Map<string, OutcomeBucket>();
  const writesPerItemSecond = new Map<string, number>();
  let reads = 0;
  let clock = 0;
  const store: OutcomeCounterStore = {
    async add(buckets, shard) {
      for (const bucket of buckets) {
        const item = `${bucket.connection_id}#${shard}#${bucket.granularity}#${bucket.start}#${bucket.segment}`;
        const second = `${item}@${Math.floor(clock / 1000)}`;
        writesPerItemSecond.set(second, (writesPerItemSecond.get(second) ?? 0) + 1);
        const known = items.get(item);
        items.set(item, {
          ...bucket,
          counts: {
            opened: (known?.counts.opened ?? 0) + bucket.counts.opened,
            paid: (known?.counts.paid ?? 0) + bucket.counts.paid,
            failed: (known?.counts.failed ?? 0) + bucket.counts.failed,
            left: (known?.counts.left ?? 0) + bucket.counts.left,
            outage: (known?.counts.outage ?? 0) + bucket.counts.outage,
          },
        });
      }
    },
    async read(connectionId) {
      reads++;
      return [...items.values()].filter((bucket) => bucket.connection_id === connectionId);
    },
  };
  return {
    store,
    setClock: (ms: number) => {
      clock = ms;
    },
    busiest: () => Math.max(0, ...writesPerItemSecond.values()),
    total: (outcome: 'opened' | 'paid') =>
      [...items.values()]
        .filter((bucket) => bucket.granularity === 'hours')
        .reduce((sum, bucket) => sum + bucket.counts[outcome], 0),
    reads: () => reads,
  };
}

describe('outcome counters under load', () => {
  it('take 2,000 checkouts a second on one connection with no item written more than 100 times a second', async () => {
    const backend = recordingStore();
    const start = Date.parse('2026-11-28T10:00:00.000Z');
    let now = start;
    const random = seededRandom(36);
    // As many containers as a Lambda fleet would run for it, each writing the shard it drew when it started.
    const containers = Array.from(
      { length: 400 },
      () =>
        new OutcomeRecorder({
          store: backend.store,
          shard: Math.floor(random() * OUTCOME_SHARDS),
          flushEveryMs: 5_000,
          now: () => new Date(now),
        }),
    );
    const seconds = 30;
    for (let tick = 0; tick < seconds * 2_000; tick++) {
      now = start + Math.floor(tick / 2);
      backend.setClock(now - start);
      const container = containers[tick % containers.length] as OutcomeRecorder;
      container.record('pc_busy', 'EUR|any|10-100', 'opened', new Date(now));
      if (tick % 5 === 0) container.record('pc_busy', 'EUR|any|10-100', 'paid', new Date(now));
      await container.flushIfDue();
    }
    for (const container of containers) await container.flush();

    expect(backend.busiest()).toBeLessThanOrEqual(100);
    // Nothing is lost while the containers live: every count arrives, in both granularities.
    expect(backend.total('opened')).toBe(seconds * 2_000);
    expect(backend.total('paid')).toBe((seconds * 2_000) / 5);
  });

  it('reads through a cache at most its maximum age stale', async () => {
    const backend = recordingStore();
    let now = Date.parse('2026-11-28T10:00:00.000Z');
    const observed = new ObservedOutcomes(backend.store, { maxAgeMs: 10_000, now: () => new Date(now) });
    const recorder = new OutcomeRecorder({
      store: backend.store,
      shard: 0,
      flushEveryMs: 0,
      now: () => new Date(now),
    });
    recorder.record('pc_a', 'EUR|any|10-100', 'opened', new Date(now));
    await recorder.flush();

    const first = await observed.windows(['pc_a']);
    expect(first.get('pc_a')?.get('EUR|any|10-100')?.last_hour.opened).toBe(1);
    recorder.record('pc_a', 'EUR|any|10-100', 'opened', new Date(now));
    await recorder.flush();
    now += 10_000;
    expect((await observed.windows(['pc_a'])).get('pc_a')?.get('EUR|any|10-100')?.last_hour.opened).toBe(1);
    expect(backend.reads()).toBe(1);
    now += 1;
    expect((await observed.windows(['pc_a'])).get('pc_a')?.get('EUR|any|10-100')?.last_hour.opened).toBe(2);
  });

  it('slides the windows: an hour of five-minute buckets, a day of hour buckets', async () => {
    const backend = recordingStore();
    const start = Date.parse('2026-11-28T10:00:00.000Z');
    let now = start;
    const recorder = new OutcomeRecorder({
      store: backend.store,
      shard: 0,
      flushEveryMs: 0,
      now: () => new Date(now),
    });
    recorder.record('pc_a', 'EUR|any|10-100', 'failed', new Date(start));
    await recorder.flush();
    now = start + 2 * 3_600_000;
    const observed = new ObservedOutcomes(backend.store, { maxAgeMs: 0, now: () => new Date(now) });
    const windows = (await observed.windows(['pc_a'])).get('pc_a')?.get('EUR|any|10-100');
    expect(windows?.last_hour.failed).toBe(0);
    expect(windows?.last_24h.failed).toBe(1);
  });
});
