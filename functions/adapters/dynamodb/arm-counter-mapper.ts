import type { OptimizeGoal } from '../../domain/strategies.ts';
import { type Arm, type ArmBucket, type ArmCounts, NO_ARM_COUNTS } from '../../domain/uplift.ts';

/**
 * An arm counter item (2026-11-30, issue 50: `arm-counter-store.ts`) as the domain reads it, and what a flush adds
 * to it. `pk` `UPLIFT#<account>#<mode>#<shard>`; `sk` `<day>#<goal>#<arm>#<segment>#<rule>`, the day first so that
 * a window is one key range, the rule's name last so that whatever it holds (`#` too) reads back whole. Every
 * count is written by every flush (`ADD` of 0 included), so none is ever absent on an item.
 */
const COUNTS = Object.keys(NO_ARM_COUNTS) as (keyof ArmCounts)[];

export const armPartition = (account: string, mode: string, shard: number) =>
  `UPLIFT#${account}#${mode}#${shard}`;

export const armSortKey = (bucket: Pick<ArmBucket, 'day' | 'goal' | 'arm' | 'segment' | 'rule'>) =>
  `${bucket.day}#${bucket.goal}#${bucket.arm}#${bucket.segment}#${bucket.rule}`;

export function armBucketFromItem(account: string, mode: string, item: Record<string, unknown>): ArmBucket {
  const [day = '', goal, arm, segment = '', ...rule] = String(item.sk).split('#');
  return {
    account,
    mode,
    day,
    goal: goal as OptimizeGoal,
    arm: arm as Arm,
    segment,
    rule: rule.join('#'),
    counts: Object.fromEntries(
      COUNTS.map((count) => [count, Number(item[count] ?? 0)]),
    ) as unknown as ArmCounts,
  };
}

/** The `ADD` of a bucket's counts: sums of money rounded to a millionth, so no float tail reaches the item. */
export function armBucketAdditions(bucket: ArmBucket): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, number>;
} {
  return {
    expression: `ADD ${COUNTS.map((count) => `#${count} :${count}`).join(', ')}`,
    names: Object.fromEntries(COUNTS.map((count) => [`#${count}`, count])),
    values: Object.fromEntries(
      COUNTS.map((count) => [`:${count}`, Math.round(bucket.counts[count] * 1e6) / 1e6]),
    ),
  };
}
