/**
 * The heat of the routing outcome counters (functions/adapters/dynamodb/outcome-counter-store.ts,
 * docs/scaling.md#outcome-counters), modelled: they are written by containers, not by a link's own calls, so
 * the store recorder of one life cannot see them. Each container adds up its outcomes in memory and flushes them
 * at most every `flushMs`, one `ADD` per counter item (a connection, a granularity, a bucket, a segment) into the
 * one shard it picked when it started; each reader reads a connection's counters, every shard, at most every
 * `cacheMs`.
 */
import { GRANULARITIES } from '../../functions/domain/outcomes.ts';
import { PARTITION_LIMITS } from './partition-heat.ts';

export interface CounterModel {
  /** Shards of a connection's counters (`OUTCOME_SHARDS`). */
  shards: number;
  /** How often a container flushes (`OUTCOME_FLUSH_MS`) and how stale its reads may be (`OUTCOME_CACHE_MS`). */
  flushMs: number;
  cacheMs: number;
  /** Outcomes counted per link: the session opened, then paid, failed or left. */
  outcomesPerLink: number;
  /** Segments one connection's links fall in (currency, method, amount band). */
  segments: number;
  /** How long a checkout visit, which reads the counters, keeps its container (docs/scaling.md). */
  readerMs: number;
  /** Bytes of one counter item (keys, four counts, ttl). */
  itemBytes: number;
}

/** Buckets a read covers: the last hour of five-minute buckets and the last day of hourly ones, each one more. */
const bucketsRead = {
  minutes: 3_600_000 / GRANULARITIES.minutes + 1,
  hours: (24 * 3_600_000) / GRANULARITIES.hours + 1,
};

/** Read units of a Query returning `bytes` (eventually consistent: half a unit per 4 KB, at least half). */
const queryRru = (bytes: number) => 0.5 * Math.max(1, Math.ceil(bytes / 4096));

export interface CounterHeat {
  /** Write units a second on the hottest counter partition (one connection's shard), whatever the batching. */
  wruPerPartition: number;
  /** Read units a second on it, from readers whose cache ran out. */
  rruPerPartition: number;
  /** Links a second (all merchants) at which that partition reaches a limit. */
  ceiling: number;
}

/**
 * One connection takes all of a merchant's links (the worst case: a merchant on one connection), so at `rate`
 * links a second over `merchants` merchants it counts `rate / merchants` links a second. Writes: at most one ADD
 * per outcome and granularity (a container's batching only lowers it), spread over the shards. Reads: at most
 * one per checkout container per cache period, and never more than the connection's visits; each reads every
 * shard, and each shard may hold every counter item of the window.
 */
export function counterHeat(model: CounterModel, rate: number, merchants: number): CounterHeat {
  const perConnection = rate / merchants;
  const granularities = Object.keys(GRANULARITIES).length;
  const wruPerLink = (model.outcomesPerLink * granularities) / model.shards;
  const readers = Math.max(1, (rate * model.readerMs) / 1000);
  const readsPerSecond = Math.min(perConnection, readers / (model.cacheMs / 1000));
  const rruPerRead =
    queryRru(bucketsRead.minutes * model.segments * model.itemBytes) +
    queryRru(bucketsRead.hours * model.segments * model.itemBytes);
  const rruPerLink = (readsPerSecond * rruPerRead) / perConnection;
  return {
    wruPerPartition: perConnection * wruPerLink,
    rruPerPartition: readsPerSecond * rruPerRead,
    // Both grow linearly with the rate (while readers exceed visits per cache period, reads grow with visits).
    ceiling: merchants * Math.min(PARTITION_LIMITS.wru / wruPerLink, PARTITION_LIMITS.rru / rruPerLink),
  };
}

/**
 * The arms' counters of `optimize` rules (functions/adapters/dynamodb/arm-counter-store.ts, docs/scaling.md#arm-counters),
 * modelled alike: written by the same recorder into the same shard, one item per day (no second granularity), a
 * partition per (account, mode) and shard, so a merchant's checkouts of every connection meet in it. At most one
 * `ADD` per outcome of an `optimize` checkout; read by people (the uplift endpoint, the console), never by a checkout.
 */
export function armHeat(
  model: Pick<CounterModel, 'shards' | 'outcomesPerLink'>,
  rate: number,
  merchants: number,
) {
  const wruPerLink = model.outcomesPerLink / model.shards;
  return {
    wruPerPartition: (rate / merchants) * wruPerLink,
    ceiling: merchants * (PARTITION_LIMITS.wru / wruPerLink),
  };
}
