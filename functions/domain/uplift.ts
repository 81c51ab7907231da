import { reportedFeeOf } from './learned-fees.ts';
import { fromMinorUnits, minorUnits } from './money.ts';
import { type Outcome, parseSegmentKey, segmentKey } from './outcomes.ts';
import type { Payment } from './payment.ts';
import { OPTIMIZE_GOALS, type OptimizeGoal } from './strategies.ts';

/**
 * What routing that learns earned (docs/orchestration.md#uplift): the paid share of an `optimize` rule's learning
 * arm against its holdout, drawn at random per checkout (functions/domain/routing.ts, `holdoutOf`), with a 95%
 * interval. Pure: the arms' counts in, the figures out.
 *
 * The interval of a difference of two proportions is Newcombe's hybrid score interval (Newcombe 1998, method 10):
 * each arm's Wilson score interval, recombined by the root-sum rule (√(a² + b²)). Unlike the Wald interval it stays inside
 * [-1, 1] and keeps its coverage with a small arm or a paid share near 0 or 1, which a 5% holdout of a small
 * merchant has. Several rules together are recombined the same way (Zou and Donner's MOVER, of which Newcombe's is
 * the two-term case), each rule weighted by its learning arm's checkouts. The fees' side (net per checkout) is a
 * difference of means with the normal (Welch) interval.
 */
export const UPLIFT_WINDOWS = { '7d': 7, '30d': 30 } as const;
export type UpliftWindow = keyof typeof UPLIFT_WINDOWS;
export const ARMS = ['learning', 'holdout'] as const;
export type Arm = (typeof ARMS)[number];

/** The two-sided 95% normal quantile. */
const Z = 1.959_963_984_540_054;

/** What one arm's checkouts became, in one segment and day: counts, and sums in the segment's currency. */
export interface ArmCounts {
  /** Checkouts: sessions the rule's decision opened (automatic recoveries are not checkouts of their own). */
  opened: number;
  paid: number;
  failed: number;
  left: number;
  /** The amounts paid, in major units. */
  amount: number;
  /** Each paid checkout's amount less its fee, summed, and its x² summed (unpaid ones add 0). */
  net: number;
  net_sq: number;
}

export const NO_ARM_COUNTS: ArmCounts = Object.freeze({
  opened: 0,
  paid: 0,
  failed: 0,
  left: 0,
  amount: 0,
  net: 0,
  net_sq: 0,
});

/** One stored counter of an arm: an (account, mode)'s rule and goal, on the day its checkouts were opened. */
export interface ArmBucket {
  account: string;
  mode: string;
  /** `YYYY-MM-DD` (UTC) of the checkouts' opening: their later outcomes count on that day too. */
  day: string;
  rule: string;
  goal: OptimizeGoal;
  arm: Arm;
  /** `segmentKey`: its currency is the sums' currency. */
  segment: string;
  counts: ArmCounts;
}

export const addArmCounts = (a: ArmCounts, b: Partial<ArmCounts>): ArmCounts => ({
  opened: a.opened + (b.opened ?? 0),
  paid: a.paid + (b.paid ?? 0),
  failed: a.failed + (b.failed ?? 0),
  left: a.left + (b.left ?? 0),
  amount: a.amount + (b.amount ?? 0),
  net: a.net + (b.net ?? 0),
  net_sq: a.net_sq + (b.net_sq ?? 0),
});

const isGoal = (strategy: string): strategy is OptimizeGoal =>
  (OPTIMIZE_GOALS as readonly string[]).includes(strategy);

/**
 * What a payment's outcome adds to its rule's arm: only a checkout an `optimize` rule decided (not an automatic
 * recovery, which follows a checkout already counted), on the day it was opened. Its fee is the one its PSP
 * reported in the payment's currency (`reportedFeeOf`), else the one its decision expected at the connection it
 * opened at (none: 0). An outage is an unpaid checkout like a decline: the arms compare what each policy earned.
 * A failed opening has no outcome (`outcomeOf`), so a checkout that failed over counts once, where it opened.
 */
export function armChangeOf(
  payment: Pick<Payment, 'account' | 'mode' | 'created_at' | 'connection_id' | 'amount' | 'routing' | 'fee'>,
  outcome: Outcome,
): ArmBucket | undefined {
  const decision = payment.routing;
  if (!decision || decision.rule === null || decision.recovery || !isGoal(decision.strategy))
    return undefined;
  const amount = Number(payment.amount?.value ?? 0);
  const expected = decision.candidates.find((c) => c.connection === payment.connection_id)?.expected_fee;
  const fee = reportedFeeOf(payment) && payment.fee ? Number(payment.fee.amount.value) : (expected ?? 0);
  const net = amount - fee;
  return {
    account: payment.account,
    mode: payment.mode,
    day: dayOf(payment.created_at),
    rule: decision.rule,
    goal: decision.strategy,
    arm: decision.holdout ? 'holdout' : 'learning',
    segment: segmentKey(decision.segment),
    counts: addArmCounts(
      NO_ARM_COUNTS,
      outcome === 'paid'
        ? { paid: 1, amount, net, net_sq: net * net }
        : { [outcome === 'outage' ? 'failed' : outcome]: 1 },
    ),
  };
}

const DAY_MS = 86_400_000;
export const dayOf = (at: Date | string): string => new Date(at).toISOString().slice(0, 10);

/** The first day of a window: today (UTC) is its last. */
export function windowFirstDay(now: Date, window: UpliftWindow): string {
  return dayOf(new Date(now.getTime() - (UPLIFT_WINDOWS[window] - 1) * DAY_MS));
}

/** A value with its 95% interval. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

/** Wilson's score interval of `paid` of `decided`. */
export function wilson(paid: number, decided: number): { low: number; high: number } {
  if (decided <= 0) return { low: 0, high: 1 };
  const share = paid / decided;
  const z2 = Z * Z;
  const denominator = 1 + z2 / decided;
  const centre = (share + z2 / (2 * decided)) / denominator;
  const half = (Z / denominator) * Math.sqrt((share * (1 - share)) / decided + z2 / (4 * decided * decided));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** One stratum of a difference: each arm's paid and decided checkouts, and the stratum's weight. */
export interface Stratum {
  weight: number;
  learning: { paid: number; decided: number };
  holdout: { paid: number; decided: number };
}

/**
 * The weighted sum of the strata's differences (learning − holdout) with its 95% interval: MOVER over Wilson
 * intervals, which for one stratum of weight 1 is Newcombe's hybrid score interval. Null when an arm of a stratum
 * has no decided checkout (nothing to compare).
 */
export function differenceInterval(strata: readonly Stratum[]): Interval | null {
  if (strata.length === 0) return null;
  if (strata.some((s) => s.learning.decided === 0 || s.holdout.decided === 0)) return null;
  let estimate = 0;
  let below = 0;
  let above = 0;
  for (const { weight, learning, holdout } of strata) {
    const p1 = learning.paid / learning.decided;
    const p2 = holdout.paid / holdout.decided;
    const i1 = wilson(learning.paid, learning.decided);
    const i2 = wilson(holdout.paid, holdout.decided);
    estimate += weight * (p1 - p2);
    below += weight * weight * ((p1 - i1.low) ** 2 + (i2.high - p2) ** 2);
    above += weight * weight * ((i1.high - p1) ** 2 + (p2 - i2.low) ** 2);
  }
  return { estimate, low: estimate - Math.sqrt(below), high: estimate + Math.sqrt(above) };
}

/** The normal 95% interval of a difference of two means, each from its count, sum and sum of x². */
export function meanDifference(
  a: { n: number; sum: number; sumSq: number },
  b: { n: number; sum: number; sumSq: number },
): Interval | null {
  if (a.n < 2 || b.n < 2) return null;
  const variance = (x: typeof a) => Math.max(0, (x.sumSq - (x.sum * x.sum) / x.n) / (x.n - 1));
  const estimate = a.sum / a.n - b.sum / b.n;
  const half = Z * Math.sqrt(variance(a) / a.n + variance(b) / b.n);
  return { estimate, low: estimate - half, high: estimate + half };
}

const decidedOf = (counts: ArmCounts) => counts.paid + counts.failed + counts.left;

export interface ArmFigures {
  checkouts: number;
  /** Checkouts whose outcome is known (paid, failed or left): what the paid share is measured on. */
  decided: number;
  paid: number;
  paid_share: number | null;
}

const armFigures = (counts: ArmCounts): ArmFigures => ({
  checkouts: counts.opened,
  decided: decidedOf(counts),
  paid: counts.paid,
  paid_share: decidedOf(counts) === 0 ? null : counts.paid / decidedOf(counts),
});

/** A difference in percentage points, and whether its interval leaves zero out. */
export type PointsDifference = Interval & { excludes_zero: boolean };

export interface AmountInterval {
  currency: string;
  estimate: string;
  low: string;
  high: string;
}

/** The net (amount less fee) per checkout of each arm in one currency, and what their difference implies. */
export interface NetUplift {
  currency: string;
  learning_per_checkout: string;
  holdout_per_checkout: string;
  difference_per_checkout: AmountInterval & { excludes_zero: boolean };
  extra: AmountInterval;
}

export interface UpliftFigures {
  learning: ArmFigures;
  holdout: ArmFigures;
  /** Learning's paid share less the holdout's, in points; null while an arm has no decided checkout. */
  difference_points: PointsDifference | null;
  /** The payments learning added to its own checkouts: the difference times its decided checkouts. */
  extra_payments: Interval | null;
  /** The same in money, per currency, at learning's mean paid amount. */
  extra_amount: AmountInterval[];
}

export interface RuleUplift extends UpliftFigures {
  rule: string;
  goal: OptimizeGoal;
  /** Only for rules that optimize `cost` or `value`: the uplift net of fees, per currency. */
  net: NetUplift[] | null;
}

export interface RoutingUplift {
  window: UpliftWindow;
  /** The first day (UTC) of the window; the last is today. */
  since: string;
  overall: UpliftFigures;
  rules: RuleUplift[];
}

type Totals = { arms: Record<Arm, ArmCounts>; byCurrency: Map<string, Record<Arm, ArmCounts>> };

function totalsOf(buckets: readonly ArmBucket[]): Totals {
  const totals: Totals = {
    arms: { learning: NO_ARM_COUNTS, holdout: NO_ARM_COUNTS },
    byCurrency: new Map(),
  };
  for (const bucket of buckets) {
    totals.arms[bucket.arm] = addArmCounts(totals.arms[bucket.arm], bucket.counts);
    const { currency } = parseSegmentKey(bucket.segment);
    const arms = totals.byCurrency.get(currency) ?? { learning: NO_ARM_COUNTS, holdout: NO_ARM_COUNTS };
    arms[bucket.arm] = addArmCounts(arms[bucket.arm], bucket.counts);
    totals.byCurrency.set(currency, arms);
  }
  return totals;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const scaled = (interval: Interval, factor: number, digits: number): Interval => ({
  estimate: round(interval.estimate * factor, digits),
  low: round(interval.low * factor, digits),
  high: round(interval.high * factor, digits),
});
const points = (interval: Interval): PointsDifference => ({
  ...scaled(interval, 100, 2),
  excludes_zero: interval.low > 0 || interval.high < 0,
});
const money = (value: number, currency: string) =>
  fromMinorUnits(BigInt(Math.round(value * 10 ** (minorUnits(currency) ?? 2))), currency);
const moneyInterval = (interval: Interval, factor: number, currency: string): AmountInterval => ({
  currency,
  estimate: money(interval.estimate * factor, currency),
  low: money(interval.low * factor, currency),
  high: money(interval.high * factor, currency),
});

function stratumOf(arms: Record<Arm, ArmCounts>, weight: number): Stratum {
  return {
    weight,
    learning: { paid: arms.learning.paid, decided: decidedOf(arms.learning) },
    holdout: { paid: arms.holdout.paid, decided: decidedOf(arms.holdout) },
  };
}

/**
 * The figures of strata (rules) together: their difference weighted by each learning arm's decided checkouts, over
 * the strata where both arms have some (a rule without a decided holdout checkout yet compares nothing).
 */
function figures(strata: readonly Totals[]): UpliftFigures {
  const learning = strata.reduce((sum, t) => addArmCounts(sum, t.arms.learning), NO_ARM_COUNTS);
  const holdout = strata.reduce((sum, t) => addArmCounts(sum, t.arms.holdout), NO_ARM_COUNTS);
  const comparable = strata.filter((t) => decidedOf(t.arms.learning) > 0 && decidedOf(t.arms.holdout) > 0);
  const decided = comparable.reduce((sum, t) => sum + decidedOf(t.arms.learning), 0);
  const difference = differenceInterval(
    comparable.map((t) => stratumOf(t.arms, decidedOf(t.arms.learning) / decided)),
  );
  const amounts = new Map<string, ArmCounts>();
  for (const totals of comparable) {
    for (const [currency, arms] of totals.byCurrency) {
      amounts.set(currency, addArmCounts(amounts.get(currency) ?? NO_ARM_COUNTS, arms.learning));
    }
  }
  return {
    learning: armFigures(learning),
    holdout: armFigures(holdout),
    difference_points: difference && points(difference),
    extra_payments: difference && scaled(difference, decided, 1),
    extra_amount: difference
      ? [...amounts]
          .filter(([, counts]) => counts.paid > 0)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([currency, counts]) =>
            moneyInterval(difference, decidedOf(counts) * (counts.amount / counts.paid), currency),
          )
      : [],
  };
}

/** The uplift net of fees in each currency: net per decided checkout, learning's less the holdout's. */
function netUplift(totals: Totals): NetUplift[] {
  return [...totals.byCurrency]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([currency, { learning, holdout }]) => {
      const sample = (counts: ArmCounts) => ({ n: decidedOf(counts), sum: counts.net, sumSq: counts.net_sq });
      const difference = meanDifference(sample(learning), sample(holdout));
      if (!difference) return [];
      return [
        {
          currency,
          learning_per_checkout: money(learning.net / decidedOf(learning), currency),
          holdout_per_checkout: money(holdout.net / decidedOf(holdout), currency),
          difference_per_checkout: {
            ...moneyInterval(difference, 1, currency),
            excludes_zero: difference.low > 0 || difference.high < 0,
          },
          extra: moneyInterval(difference, decidedOf(learning), currency),
        },
      ];
    });
}

/**
 * The uplift of each (rule, goal) found in `buckets` (the window's counters of one account and mode), busiest
 * first, and of them all together. A rule is known by its name and goal: renaming it, or changing its goal,
 * starts a new comparison.
 */
export function routingUplift(buckets: readonly ArmBucket[], window: UpliftWindow, now: Date): RoutingUplift {
  const since = windowFirstDay(now, window);
  const byRule = new Map<string, ArmBucket[]>();
  for (const bucket of buckets) {
    if (bucket.day < since) continue;
    const key = JSON.stringify([bucket.rule, bucket.goal]);
    byRule.set(key, [...(byRule.get(key) ?? []), bucket]);
  }
  const rules = [...byRule.values()].map((ruleBuckets) => {
    const { rule, goal } = ruleBuckets[0] as ArmBucket;
    const totals = totalsOf(ruleBuckets);
    return { rule, goal, totals, figures: figures([totals]) };
  });
  rules.sort(
    (a, b) => b.figures.learning.checkouts - a.figures.learning.checkouts || a.rule.localeCompare(b.rule),
  );
  return {
    window,
    since,
    overall: figures(rules.map((rule) => rule.totals)),
    rules: rules.map(({ rule, goal, totals, figures: ruleFigures }) => ({
      rule,
      goal,
      ...ruleFigures,
      net: goal === 'conversion' ? null : netUplift(totals),
    })),
  };
}
