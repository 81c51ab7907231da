import type { OutcomeBucket } from '../domain/outcomes.ts';
import type { ArmBucket } from '../domain/uplift.ts';

/**
 * Where the observed outcomes of connections are kept (docs/orchestration.md#observed-outcomes): counters in
 * time buckets, each split into `OUTCOME_SHARDS` items so that no item takes more than a share of the writes.
 * 16: one merchant's 3,000 links a second on one connection write at most 4 ADDs a link (two outcomes, two
 * granularities), 750 write units a second per shard (docs/scaling.md#outcome-counters). Readers read every
 * shard, so raising it needs no migration: shards never written read empty.
 */
export const OUTCOME_SHARDS = 16;

export interface OutcomeCounterStore {
  /** Adds each bucket's counts to its item in `shard` (one atomic ADD per bucket). */
  add(buckets: readonly OutcomeBucket[], shard: number): Promise<void>;
  /** The buckets of a connection (every shard summed) that started at or after `since`, by granularity. */
  read(connectionId: string, since: { minutes: number; hours: number }): Promise<OutcomeBucket[]>;
}

/**
 * Where the arms of `optimize` rules are counted (docs/orchestration.md#uplift): per (account, mode), day, rule,
 * goal, arm and segment, sharded as the outcome counters are, kept long enough for the longest uplift window.
 */
export interface ArmCounterStore {
  /** Adds each bucket's counts to its item in `shard` (one atomic ADD per bucket). */
  add(buckets: readonly ArmBucket[], shard: number): Promise<void>;
  /** The buckets of an (account, mode) from `firstDay` (`YYYY-MM-DD`) on, every shard summed. */
  read(account: string, mode: string, firstDay: string): Promise<ArmBucket[]>;
}
