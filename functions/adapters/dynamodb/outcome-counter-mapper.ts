import { type Granularity, OUTCOMES, type OutcomeBucket, type OutcomeCounts } from '../../domain/outcomes.ts';

/**
 * An outcome counter item as the domain reads it (functions/adapters/dynamodb/outcome-counter-store.ts keeps
 * them). Fields added after the item first existed, each with what it reads as when absent:
 * - `w_opened`, `w_paid`, `w_failed`, `w_left` (2026-11-30, outcomes weighed for learning,
 *   functions/domain/outcome-weights.ts): the counts themselves, as learning read them before.
 */
const weightedAttribute = (outcome: keyof OutcomeCounts) => `w_${outcome}` as const;

const countsOf = (read: (outcome: keyof OutcomeCounts) => unknown): OutcomeCounts =>
  Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Number(read(outcome) ?? 0)])) as OutcomeCounts;

export function outcomeBucketFromItem(connectionId: string, item: Record<string, unknown>): OutcomeBucket {
  const [granularity, start, segment] = String(item.sk).split('#') as [Granularity, string, string];
  const counts = countsOf((outcome) => item[outcome]);
  const weighted = OUTCOMES.some((outcome) => weightedAttribute(outcome) in item)
    ? countsOf((outcome) => item[weightedAttribute(outcome)])
    : counts;
  return { connection_id: connectionId, segment, granularity, start: Date.parse(start), counts, weighted };
}

/** What one flush adds to an item: every count and weighted count, as `ADD` operands (`:opened`, `:w_opened`). */
export function outcomeBucketAdditions(bucket: OutcomeBucket): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, number>;
} {
  const weighted = bucket.weighted ?? bucket.counts;
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const terms: string[] = [];
  for (const outcome of OUTCOMES) {
    for (const [attribute, value] of [
      [outcome, bucket.counts[outcome]],
      [weightedAttribute(outcome), weighted[outcome]],
    ] as const) {
      names[`#${attribute}`] = attribute;
      values[`:${attribute}`] = roundWeight(value);
      terms.push(`#${attribute} :${attribute}`);
    }
  }
  return { expression: `ADD ${terms.join(', ')}`, names, values };
}

/** Weights are quarters and halves; rounding keeps a float's tail (0.30000000000000004) out of the item. */
const roundWeight = (value: number) => Math.round(value * 1e6) / 1e6;
