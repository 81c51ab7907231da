import {
  type Granularity,
  OUTCOMES,
  type OutcomeBucket,
  type OutcomeCounts,
  type ReportedFees,
} from '../../domain/outcomes.ts';

/**
 * An outcome counter item as the domain reads it (functions/adapters/dynamodb/outcome-counter-store.ts keeps
 * them). Fields added after the item first existed, each with what it reads as when absent:
 * - `w_opened`, `w_paid`, `w_failed`, `w_left` (2026-11-30, outcomes weighed for learning,
 *   functions/domain/outcome-weights.ts): the counts themselves, as learning read them before.
 * - `outage`, `w_outage` (2026-11-30, outages counted apart from declines): 0, every failure having been a decline.
 * - `f_count`, `f_amount`, `f_fee` (2026-11-30, the fees PSPs reported, on hour buckets only,
 *   functions/domain/learned-fees.ts): none reported.
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
  const fees = 'f_count' in item ? reportedFeesOf(item) : undefined;
  return {
    connection_id: connectionId,
    segment,
    granularity,
    start: Date.parse(start),
    counts,
    weighted,
    ...(fees ? { fees } : {}),
  };
}

const reportedFeesOf = (item: Record<string, unknown>): ReportedFees => ({
  count: Number(item.f_count ?? 0),
  amount_minor: Number(item.f_amount ?? 0),
  fee_minor: Number(item.f_fee ?? 0),
});

/** What one flush adds to an item's reported fees, as `ADD` operands; none when it reported none. */
const feeAdditions = (fees: ReportedFees | undefined): [string, number][] =>
  fees && fees.count > 0
    ? [
        ['f_count', fees.count],
        ['f_amount', fees.amount_minor],
        ['f_fee', fees.fee_minor],
      ]
    : [];

/**
 * What one flush adds to an item: every count and weighted count, as `ADD` operands (`:opened`, `:w_opened`), and
 * the fees reported in it, when some were.
 */
export function outcomeBucketAdditions(bucket: OutcomeBucket): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, number>;
} {
  const weighted = bucket.weighted ?? bucket.counts;
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const terms: string[] = [];
  const operands: [string, number][] = [
    ...OUTCOMES.flatMap((outcome): [string, number][] =>
      // Most items never see an outage: without one they carry neither attribute (read as 0).
      outcome === 'outage' && bucket.counts.outage === 0 && weighted.outage === 0
        ? []
        : [
            [outcome, bucket.counts[outcome]],
            [weightedAttribute(outcome), weighted[outcome]],
          ],
    ),
    ...feeAdditions(bucket.fees),
  ];
  for (const [attribute, value] of operands) {
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = roundWeight(value);
    terms.push(`#${attribute} :${attribute}`);
  }
  return { expression: `ADD ${terms.join(', ')}`, names, values };
}

/** Weights are quarters and halves; rounding keeps a float's tail (0.30000000000000004) out of the item. */
const roundWeight = (value: number) => Math.round(value * 1e6) / 1e6;
