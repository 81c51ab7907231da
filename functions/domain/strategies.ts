import type { FeeLine, PspConnection } from './connection.ts';
import { type FeeBasis, feeEstimate } from './learned-fees.ts';
import type { Amount } from './money.ts';
import {
  addCounts,
  countsWithout,
  decided,
  NO_OUTCOMES,
  type OutcomeCounts,
  type OutcomeWindows,
  paidShare,
} from './outcomes.ts';
import type { PaymentMethod } from './payment-methods.ts';
import { sharesDiffer, shiftedShare, unseenChange } from './segment-drift.ts';

/**
 * Routing strategies that learn (docs/orchestration.md#strategies): which candidate of an `optimize` rule to try
 * first, from what each one's sessions became in the link's segment. Pure: randomness is injected.
 */
export const OPTIMIZE_GOALS = ['conversion', 'cost', 'value'] as const;
export type OptimizeGoal = (typeof OPTIMIZE_GOALS)[number];

/** At least this share of decisions among several candidates picks one uniformly at random. */
export const EXPLORATION_RATE = 0.05;
/** A candidate is judged (eliminated) only on at least this many sessions of known outcome. */
export const ELIMINATION_MIN_SESSIONS = 50;
/**
 * The rest of the last day weighs at most as much as this many decided sessions beside the last hour: enough to
 * start from when the hour is thin, too little to outvote a connection's last hour after it changed.
 */
export const OLDER_EVIDENCE_WEIGHT = 20;

/** The line that applies to a payment: one naming both currency and method, then either, then neither. */
export function feeLineFor(
  lines: readonly FeeLine[] | null | undefined,
  currency: string,
  method: PaymentMethod | undefined,
): FeeLine | undefined {
  const fits = (line: FeeLine) =>
    (line.currency === undefined || line.currency === currency) &&
    (line.method === undefined || line.method === method);
  const specificity = (line: FeeLine) => (line.method ? 2 : 0) + (line.currency ? 1 : 0);
  return (lines ?? []).filter(fits).sort((a, b) => specificity(b) - specificity(a))[0];
}

/** The fee a payment of `amount` would cost, in major units; null when the connection has no matching line. */
export function expectedFee(
  lines: readonly FeeLine[] | null | undefined,
  amount: Amount,
  method: PaymentMethod | undefined,
): number | null {
  const line = feeLineFor(lines, amount.currency, method);
  if (!line) return null;
  return Math.round((Number(amount.value) * line.percent + line.fixed * 100) * 100) / 10_000;
}

/** What the decision knew of one candidate. */
export interface CandidateEstimate {
  connection: string;
  /** Paid share of its decided sessions in the segment (the evidence window), null with none. */
  paid_share: number | null;
  /** Decided sessions behind `paid_share`. */
  sessions: number;
  expected_fee: number | null;
  /** Whether `expected_fee` was learned from the fees its PSP reported or taken from its fee lines; null with it. */
  fee_basis: FeeBasis | null;
  /** Left out for a paid share below half the best's (it can still be drawn by exploration). */
  eliminated: boolean;
}

export interface StrategyInput {
  goal: OptimizeGoal;
  /** The rule's usable connections, in the rule's order. */
  candidates: readonly PspConnection[];
  /** The candidate's windows in the link's segment. */
  observed: (connectionId: string) => OutcomeWindows | undefined;
  /** The candidate's windows in its other segments (a change they show first: functions/domain/segment-drift.ts). */
  otherSegments?: ((connectionId: string) => readonly OutcomeWindows[]) | undefined;
  /** Whether the connection is down now: it is never chosen. */
  isDown: (connectionId: string) => boolean;
  amount: Amount;
  /** The link's payment method when it names one: fee lines may be per method. */
  method: PaymentMethod | undefined;
  /** Uniform in [0, 1). */
  random: () => number;
}

export interface StrategyChoice {
  /** The candidates to try, best first; down ones last. */
  order: PspConnection[];
  estimates: CandidateEstimate[];
  /** The first was drawn uniformly, not for its estimate. */
  exploration: boolean;
}

/**
 * The evidence of one candidate: the last hour in full, plus the rest of the last day scaled down to at most
 * `OLDER_EVIDENCE_WEIGHT` sessions. Falling back to the whole day whenever the hour is thin would let a connection
 * that dropped, and so gets few sessions, look as good as before its drop and win again (measured by bench row
 * 80-routing: about half a point of conversion lost to that swing).
 */
export function evidence(observed: OutcomeWindows | undefined): OutcomeCounts {
  if (!observed) return NO_OUTCOMES;
  // Outcomes as learning weighs them: a flood from a few clients does not count (functions/domain/outcome-weights.ts).
  const windows = observed.weighted ?? observed;
  const hour = windows.last_hour;
  return addCounts(hour, atMost(countsWithout(windows.last_24h, hour), OLDER_EVIDENCE_WEIGHT));
}

/**
 * The hour before the last one counts in full in a draw (`drawEvidence`) only on at least this many decided
 * sessions: a candidate seen that little there was seen through exploration, which is how a rise of one measured
 * below the best is found (the `four` world's D), and its few sessions must not narrow its draws. Measured on seeds
 * 1 to 60 (docs/performance.md#routing-that-learns): 50 left `four` as it was without the hour before, 100 to 150
 * made it better, 250 lost half of what `bursts` gained.
 */
export const HOUR_BEFORE_MIN_SESSIONS = 100;

/**
 * What a Thompson draw reads of a candidate: its `evidence`, but with the hour before the last one (the rest of the
 * last two hours' buckets) in full when it holds `HOUR_BEFORE_MIN_SESSIONS` and the last hour's paid share agrees
 * with it (`sharesDiffer`). A candidate another one took the traffic from has a thin last hour: read as `evidence`,
 * an hour later it would draw as widely as a connection seen 20 times, and win draws, hence checkouts, it was
 * measured not to deserve (docs/performance.md#routing-that-learns). One whose last hour shows a change reads as
 * `evidence`, so that the change is not outvoted by the hour before it. Exploration and elimination keep reading
 * `evidence`: whether a candidate could be the best now is the last hour's to say.
 */
export function drawEvidence(observed: OutcomeWindows | undefined): OutcomeCounts {
  const windows = observed?.weighted ?? observed;
  if (!windows?.last_2h) return evidence(observed);
  const hour = windows.last_hour;
  const hourBefore = countsWithout(windows.last_2h, hour);
  if (decided(hourBefore) < HOUR_BEFORE_MIN_SESSIONS || sharesDiffer(hour, hourBefore)) {
    return evidence(observed);
  }
  const older = atMost(countsWithout(windows.last_24h, windows.last_2h), OLDER_EVIDENCE_WEIGHT);
  return addCounts(addCounts(hour, hourBefore), older);
}

/** `counts` scaled down to at most `sessions` decided sessions; none with none decided. */
function atMost(counts: OutcomeCounts, sessions: number): OutcomeCounts {
  const known = decided(counts);
  const weight = known === 0 ? 0 : Math.min(1, sessions / known);
  return {
    opened: counts.opened * weight,
    paid: counts.paid * weight,
    failed: counts.failed * weight,
    left: counts.left * weight,
    outage: counts.outage * weight,
  };
}

/**
 * Orders an `optimize` rule's candidates: down ones go last, unscored (failover skips them while they are down;
 * kept, an open session at one still counts as served); with several up, one decision in `EXPLORATION_RATE`
 * draws the first uniformly among those that could still be the best (`couldBeBest`; any one up for `cost`);
 * otherwise each is scored (Thompson sampling over paid and unpaid counts for `conversion` and `value`, the lowest
 * expected fee for `cost`), eliminated ones last.
 */
export function chooseByStrategy(input: StrategyInput): StrategyChoice {
  const { candidates, random } = input;
  const up = candidates.filter((connection) => !input.isDown(connection.id));
  const evidences = new Map(
    up.map((connection) => [connection.id, evidenceOf(input, connection.id)] as const),
  );
  const counts = new Map([...evidences].map(([id, known]) => [id, known.judged] as const));
  const estimates = estimatesOf(input, up, counts);
  const scored = up.map((connection, index) => {
    const estimate = estimates[index] as CandidateEstimate;
    return {
      connection,
      estimate,
      index,
      score: score(input, estimate, evidences.get(connection.id)?.drawn),
    };
  });
  scored.sort(
    (a, b) =>
      Number(a.estimate.eliminated) - Number(b.estimate.eliminated) || b.score - a.score || a.index - b.index,
  );
  const down = candidates.filter((connection) => input.isDown(connection.id));
  const order = scored.map((entry) => entry.connection);
  if (up.length > 1 && random() < EXPLORATION_RATE) {
    const pool = input.goal === 'cost' ? up : couldBeBest(input, up, estimates, counts);
    const drawn = pool[Math.min(pool.length - 1, Math.floor(random() * pool.length))] as PspConnection;
    return { order: [drawn, ...order.filter((c) => c !== drawn), ...down], estimates, exploration: true };
  }
  return { order: [...order, ...down], estimates, exploration: false };
}

/**
 * How many standard deviations above its mean a candidate's paid share may still be: exploration draws among the
 * candidates whose share that high would reach the best mean (in expected net for `value`).
 */
export const EXPLORATION_REACH = 2;

/**
 * The candidates up that could still be the best: their Beta(1 + paid, 1 + unpaid)'s mean plus
 * `EXPLORATION_REACH` standard deviations reaches the highest mean (each in expected net for `value`). One seen
 * little has a wide Beta and stays among them; one well measured far below the best does not, as exploring it only
 * costs (measured: docs/performance.md#routing-that-learns); it is still seen through the holdout and through
 * Thompson draws of its evidence, which thins without sessions (`evidence`).
 */
function couldBeBest(
  input: StrategyInput,
  up: readonly PspConnection[],
  estimates: readonly CandidateEstimate[],
  counts: ReadonlyMap<string, OutcomeCounts>,
): PspConnection[] {
  const worth = estimates.map((estimate) => {
    const known = counts.get(estimate.connection) ?? NO_OUTCOMES;
    const paid = 1 + known.paid;
    const total = paid + 1 + known.failed + known.left;
    const mean = paid / total;
    const spread = Math.sqrt((mean * (1 - mean)) / (total + 1));
    const value = input.goal === 'value' ? Number(input.amount.value) - (estimate.expected_fee ?? 0) : 1;
    return { mean: mean * value, high: (mean + EXPLORATION_REACH * spread) * value };
  });
  const best = Math.max(...worth.map((candidate) => candidate.mean));
  return up.filter((_, index) => (worth[index]?.high ?? 0) >= best);
}

/**
 * A candidate's `evidence` (`judged`) and `drawEvidence` (`drawn`) in the link's segment, each moved by the change
 * its other segments saw first.
 */
function evidenceOf(
  input: StrategyInput,
  connectionId: string,
): { judged: OutcomeCounts; drawn: OutcomeCounts } {
  const own = input.observed(connectionId);
  const change = unseenChange(own, input.otherSegments?.(connectionId) ?? []);
  return { judged: shiftedShare(evidence(own), change), drawn: shiftedShare(drawEvidence(own), change) };
}

function estimatesOf(
  input: StrategyInput,
  up: readonly PspConnection[],
  evidences: ReadonlyMap<string, OutcomeCounts>,
): CandidateEstimate[] {
  const raw = up.map((connection) => {
    const observed = input.observed(connection.id);
    const counts = evidences.get(connection.id) ?? NO_OUTCOMES;
    return {
      connection: connection.id,
      paid_share: paidShare(counts),
      sessions: Math.round(decided(counts)),
      ...feeEstimate(
        expectedFee(connection.fees, input.amount, input.method),
        observed?.reported_fees,
        input.amount,
      ),
    };
  });
  const judged = raw.filter((estimate) => estimate.sessions >= ELIMINATION_MIN_SESSIONS);
  const best = Math.max(0, ...judged.map((estimate) => estimate.paid_share ?? 0));
  return raw.map((estimate) => ({
    ...estimate,
    eliminated: estimate.sessions >= ELIMINATION_MIN_SESSIONS && (estimate.paid_share ?? 0) < best / 2,
  }));
}

function score(input: StrategyInput, estimate: CandidateEstimate, counts = NO_OUTCOMES): number {
  const fee = estimate.expected_fee ?? 0;
  if (input.goal === 'cost') return -fee;
  const paid = sampleBeta(1 + counts.paid, 1 + counts.failed + counts.left, input.random);
  return input.goal === 'conversion' ? paid : paid * (Number(input.amount.value) - fee);
}

/** A draw from Beta(a, b) as X / (X + Y) of two Gamma draws. */
export function sampleBeta(a: number, b: number, random: () => number): number {
  const x = sampleGamma(a, random);
  const y = sampleGamma(b, random);
  return x / (x + y);
}

/** Marsaglia and Tsang's Gamma(shape) sampler, for shape >= 1 (ours are counts plus one). */
function sampleGamma(shape: number, random: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const normal = sampleNormal(random);
    const v = (1 + c * normal) ** 3;
    if (v <= 0) continue;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * normal * normal + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Box-Muller: one standard normal from two uniforms. */
function sampleNormal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
