import { BoundedCache } from '../bounded-cache.ts';
import { BUILT_IN_SANDBOX_ID } from '../domain/connection.ts';
import {
  addCounts,
  bucketStart,
  DAY_MS,
  GRANULARITIES,
  type Granularity,
  HOUR_MS,
  NO_OUTCOMES,
  type Outcome,
  type OutcomeBucket,
  type OutcomeWindows,
  outcomeOf,
  segmentKey,
  segmentOf,
  windowsOf,
} from '../domain/outcomes.ts';
import type { Payment } from '../domain/payment.ts';
import { logger } from '../logger.ts';
import type { OutcomeCounterStore } from '../ports/outcome-counters.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';

/**
 * Observed outcomes (docs/orchestration.md#observed-outcomes), written and read at a bounded rate: each
 * container adds up its outcomes in memory and flushes them at most every `flushEveryMs`, one ADD per bucket
 * item of its own shard; reads go through a per-container cache at most `maxAgeMs` old. Counts not yet flushed
 * when a container dies are lost: they are statistics, and a few seconds of one container's share is noise.
 */
export interface OutcomeRecorderOptions {
  store: OutcomeCounterStore;
  /** The shard this container writes (uniform in [0, OUTCOME_SHARDS)). */
  shard: number;
  flushEveryMs: number;
  now: () => Date;
}

export class OutcomeRecorder {
  private readonly options: OutcomeRecorderOptions;
  private pending = new Map<string, OutcomeBucket>();
  private lastFlush: number;

  constructor(options: OutcomeRecorderOptions) {
    this.options = options;
    this.lastFlush = options.now().getTime();
  }

  /** Counts one outcome of `connectionId` in `segment` (a `segmentKey`) at `at`, in both granularities. */
  record(connectionId: string, segment: string, outcome: Outcome, at: Date): void {
    for (const granularity of Object.keys(GRANULARITIES) as Granularity[]) {
      const start = bucketStart(at, granularity);
      const key = `${connectionId}#${granularity}#${start}#${segment}`;
      const bucket = this.pending.get(key) ?? {
        connection_id: connectionId,
        segment,
        granularity,
        start,
        counts: NO_OUTCOMES,
      };
      this.pending.set(key, { ...bucket, counts: addCounts(bucket.counts, { [outcome]: 1 }) });
    }
  }

  /** Flushes when the interval has passed since the last flush; a failed flush keeps nothing (see above). */
  async flushIfDue(): Promise<void> {
    if (this.options.now().getTime() - this.lastFlush < this.options.flushEveryMs) return;
    await this.flush();
  }

  async flush(): Promise<void> {
    this.lastFlush = this.options.now().getTime();
    if (this.pending.size === 0) return;
    const buckets = [...this.pending.values()];
    this.pending = new Map();
    await this.options.store.add(buckets, this.options.shard).catch((error: unknown) => {
      logger.warn('Outcome counts not recorded', { buckets: buckets.length, error });
    });
  }
}

/** The segment a payment's outcomes count in: its routing decision's, else its amount's (older payments). */
function segmentOfPayment(payment: Payment): string | undefined {
  if (payment.routing) return segmentKey(payment.routing.segment);
  return payment.amount ? segmentKey(segmentOf(payment.amount, undefined)) : undefined;
}

/**
 * The payment repository, counting what each saved change says about its connection (`outcomeOf`) once the
 * write succeeded: every path that moves a payment (checkout, notifications, the sweeper) is counted alike.
 */
export function countingPayments(inner: PaymentRepository, recorder: OutcomeRecorder): PaymentRepository {
  return {
    get: (linkId, mode, id) => inner.get(linkId, mode, id),
    listOfLink: (linkId, mode) => inner.listOfLink(linkId, mode),
    listOfLinkSince: (linkId, mode, since) => inner.listOfLinkSince(linkId, mode, since),
    dueForCheck: (now, limit) => inner.dueForCheck(now, limit),
    pendingOfConnection: (connectionId) => inner.pendingOfConnection(connectionId),
    async save(payment, before) {
      await inner.save(payment, before);
      // The built-in sandbox serves every test account under one id: its counts would mix tenants.
      if (payment.connection_id === BUILT_IN_SANDBOX_ID) return;
      const outcome = outcomeOf(payment, before);
      const segment = segmentOfPayment(payment);
      if (!outcome || !segment) return;
      recorder.record(payment.connection_id, segment, outcome, new Date(payment.updated_at));
      await recorder.flushIfDue();
    },
  };
}

/** The windows of each connection by segment key, read through a per-container cache. */
export class ObservedOutcomes {
  private readonly store: OutcomeCounterStore;
  private readonly maxAgeMs: number;
  private readonly now: () => Date;
  private readonly cache = new BoundedCache<string, { at: number; windows: Map<string, OutcomeWindows> }>(
    1000,
  );

  constructor(store: OutcomeCounterStore, options: { maxAgeMs: number; now: () => Date }) {
    this.store = store;
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.now;
  }

  async windows(connectionIds: readonly string[]): Promise<Map<string, Map<string, OutcomeWindows>>> {
    const entries = await Promise.all(
      connectionIds.map(async (id) => [id, await this.ofConnection(id)] as const),
    );
    return new Map(entries);
  }

  private async ofConnection(connectionId: string): Promise<Map<string, OutcomeWindows>> {
    const now = this.now();
    const cached = this.cache.get(connectionId);
    if (cached && now.getTime() - cached.at <= this.maxAgeMs) return cached.windows;
    const since = {
      minutes: bucketStart(new Date(now.getTime() - HOUR_MS), 'minutes'),
      hours: bucketStart(new Date(now.getTime() - DAY_MS), 'hours'),
    };
    const buckets = await this.store.read(connectionId, since);
    const windows = windowsOf(buckets, now).get(connectionId) ?? new Map<string, OutcomeWindows>();
    this.cache.set(connectionId, { at: now.getTime(), windows });
    return windows;
  }
}
