/**
 * Partition heat (docs/scaling.md#partition-heat): from the store calls of one link's life, by partition key,
 * the write and read units each partition of the table and of each index takes per link, and the rate of links
 * at which the hottest one reaches DynamoDB's per-partition limits (1,000 write units and 3,000 read units a
 * second), for traffic spread over many merchants and for traffic from one.
 */
import { ID_PREFIXES } from '../../functions/domain/ids.ts';
import type { PartitionUnits } from './store-cost.ts';

/** DynamoDB's throughput limits of one partition, per second (docs/scaling.md#partition-heat). */
export const PARTITION_LIMITS = { wru: 1000, rru: 3000 } as const;

/**
 * How a partition key's load grows with the rate of links: `link` keys are new with each link (its link, its
 * events, its payments: no rate heats one), `merchant` keys are one (or `shards`) per merchant, `shared` keys
 * one (or `shards`) for the whole service.
 */
export type Scope = 'link' | 'merchant' | 'shared';

export interface KeyHeat {
  target: string;
  /** The key with the link's and merchant's ids and the shard number replaced: `OUTBOX#<shard>`. */
  pattern: string;
  scope: Scope;
  /** How many partitions the pattern spreads over (shards seen, at least 1). */
  shards: number;
  /** Units one link's life spends in the pattern, all its partitions together. */
  wru: number;
  rru: number;
}

const SHARD = /#(\d+)$/;
const ID = new RegExp(`\\b(?:${ID_PREFIXES.join('|')})_[A-Za-z0-9]+`, 'g');
/** Ids of what a merchant keeps (API keys, PSP connections, webhook endpoints): as hot as the merchant. */
const MERCHANT_IDS: readonly string[] = ['key', 'pc', 'we'];
/** Hashes (idempotency keys) and random opaque tokens: 20 or more URL-safe characters. */
const TOKEN = /(?<=#)[A-Za-z0-9_-]{20,}(?=#|$)/g;

/** The pattern of a partition key: ids, the account and shard numbers replaced by what they stand for. */
export function patternOf(key: string, account: string): { pattern: string; scope: Scope; shard?: number } {
  const shard = SHARD.exec(key);
  let perLink = false;
  let perMerchant = key.includes(account);
  let pattern = key
    .split(account)
    .join('<account>')
    .replace(ID, (id) => {
      const prefix = id.split('_')[0] as string;
      if (MERCHANT_IDS.includes(prefix)) perMerchant = true;
      else perLink = true;
      return `<${prefix}>`;
    })
    .replace(TOKEN, () => {
      perLink = true;
      return '<token>';
    });
  if (shard) pattern = pattern.replace(SHARD, '#<shard>');
  const scope: Scope = perLink ? 'link' : perMerchant ? 'merchant' : 'shared';
  return { pattern, scope, ...(shard && { shard: Number(shard[1]) }) };
}

/**
 * The units of one life's partitions by pattern. `shardCount` says how many shards a sharded pattern has (the
 * life touches only some of them).
 */
export function heatByPattern(
  partitions: readonly PartitionUnits[],
  account: string,
  shardCount: (pattern: string) => number,
): KeyHeat[] {
  const byPattern = new Map<string, KeyHeat>();
  for (const part of partitions) {
    const { pattern, scope, shard } = patternOf(part.key, account);
    const id = `${part.target} ${pattern}`;
    const heat = byPattern.get(id) ?? {
      target: part.target,
      pattern,
      scope,
      shards: shard === undefined ? 1 : shardCount(pattern),
      wru: 0,
      rru: 0,
    };
    heat.wru += part.wru;
    heat.rru += part.rru;
    byPattern.set(id, heat);
  }
  return [...byPattern.values()];
}

/**
 * Links per second at which one partition of the pattern reaches a limit, when the links come from `merchants`
 * merchants evenly: a merchant's share of the rate falls on its keys, the whole rate on shared ones, each
 * spread over its shards; a link's own keys take one life's units whatever the rate.
 */
export function ceilingOf(heat: KeyHeat, merchants: number): number {
  if (heat.scope === 'link') return Number.POSITIVE_INFINITY;
  const spread = heat.shards * (heat.scope === 'merchant' ? merchants : 1);
  const perPartition = { wru: heat.wru / spread, rru: heat.rru / spread };
  return Math.min(
    perPartition.wru ? PARTITION_LIMITS.wru / perPartition.wru : Number.POSITIVE_INFINITY,
    perPartition.rru ? PARTITION_LIMITS.rru / perPartition.rru : Number.POSITIVE_INFINITY,
  );
}

/** The patterns hottest first (lowest ceiling) for traffic from `merchants` merchants. */
export function hottest(heats: readonly KeyHeat[], merchants: number): (KeyHeat & { ceiling: number })[] {
  return heats
    .map((heat) => ({ ...heat, ceiling: ceilingOf(heat, merchants) }))
    .sort((a, b) => a.ceiling - b.ceiling);
}
