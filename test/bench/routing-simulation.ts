import type { PspConnection } from '../../functions/domain/connection.ts';
import {
  addCounts,
  bucketStart,
  type Outcome,
  type OutcomeBucket,
  type OutcomeWindows,
  segmentKey,
  segmentOf,
  windowsOf,
} from '../../functions/domain/outcomes.ts';
import { type Routing, type RoutingTarget, routeDecision } from '../../functions/domain/routing.ts';
import { expectedFee } from '../../functions/domain/strategies.ts';

/**
 * The routing simulation of docs/orchestration.md#measured (bench row 80-routing): a stream of checkouts over
 * three connections whose true paid shares drift, routed by the real rule engine and strategies
 * (functions/domain/routing.ts, strategies.ts) on counters kept as the service keeps them (the buckets of
 * functions/domain/outcomes.ts), read as a container reads them: refreshed every `CACHE_MS`, so each decision
 * sees windows up to that stale. Seeded, so a run's numbers are reproducible.
 */

export const CHECKOUTS = 20_000;
/** One checkout every this many ms of simulated time: 20,000 of them span about 11 hours. */
export const ARRIVAL_MS = 2_000;
/** A session's outcome (paid, declined or left) is known this long after it opened. */
export const OUTCOME_AFTER_MS = 3 * 60_000;
/** How stale a container's read of the counters may be (functions/use-cases/outcome-recording.ts). */
export const CACHE_MS = 10_000;
/** Every link charges this: one segment, so each strategy learns from every checkout. */
export const AMOUNT = { currency: 'EUR', value: '50.00' };

const ACCOUNT = 'acct_routing_bench';
const connection = (id: string, percent: number, fixed: number): PspConnection => ({
  id,
  account: ACCOUNT,
  mode: 'test',
  provider: 'sandbox',
  name: id,
  enabled: true,
  simulate: 'ok',
  secret_name: null,
  fees: [{ percent, fixed }],
  created_at: '2026-11-28T00:00:00.000Z',
});

/** A, B and C of issue 36: C's fees are twice A's. */
export const CONNECTIONS = [
  connection('pc_A', 1.4, 0.25),
  connection('pc_B', 1.6, 0.25),
  connection('pc_C', 2.8, 0.5),
] as const;
const [A, B, C] = CONNECTIONS.map((c) => c.id) as [string, string, string];

/** The true paid share of each connection at checkout `index`: A falls from 0.85 to 0.55 after the first third. */
export function trueShare(id: string, index: number): number {
  if (id === A) return index < CHECKOUTS / 3 ? 0.85 : 0.55;
  return id === B ? 0.78 : 0.8;
}

export const STRATEGIES = ['priority', 'split', 'conversion', 'cost', 'value', 'oracle'] as const;
export type Strategy = (typeof STRATEGIES)[number];

const targets: Record<Exclude<Strategy, 'oracle'>, RoutingTarget> = {
  priority: { priority: [A, B, C] },
  split: {
    split: [
      { connection: A, weight: 34 },
      { connection: B, weight: 33 },
      { connection: C, weight: 33 },
    ],
  },
  conversion: { optimize: 'conversion', connections: [A, B, C] },
  cost: { optimize: 'cost', connections: [A, B, C] },
  value: { optimize: 'value', connections: [A, B, C] },
};

const routingOf = (target: RoutingTarget): Routing => ({
  rules: [{ name: 'bench', when: { currency: ['EUR'] }, then: target }],
  default: [A, B, C],
});

/** mulberry32: a small seeded generator, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface StrategyResult {
  strategy: Strategy;
  paid: number;
  /** Paid share over the whole run, and over the checkouts after the drift. */
  conversion: number;
  conversionAfterDrift: number;
  /** Fees of the paid payments, and what the merchant kept: amounts paid less fees. */
  fees: number;
  net: number;
  explorations: number;
  /** Paid share per window of `WINDOW` checkouts, for the chart. */
  series: number[];
}

/** Checkouts per point of the chart. */
export const WINDOW = 500;

const FEE = new Map(CONNECTIONS.map((c) => [c.id, expectedFee(c.fees, AMOUNT, undefined) ?? 0]));
const feeOf = (id: string) => FEE.get(id) ?? 0;

/** The connection the oracle picks: the highest true expected net (for equal fees, the highest paid share). */
function oracleChoice(index: number, goal: 'conversion' | 'value'): string {
  const value = (id: string) =>
    trueShare(id, index) * (goal === 'value' ? Number(AMOUNT.value) - feeOf(id) : 1);
  return [A, B, C].reduce((best, id) => (value(id) > value(best) ? id : best));
}

/** Counters as the service keeps them: five-minute and hour buckets per connection, segment and bucket start. */
class InMemoryCounters {
  private readonly buckets = new Map<string, OutcomeBucket>();
  private read: { at: number; windows: Map<string, Map<string, OutcomeWindows>> } | undefined;

  add(connectionId: string, segment: string, outcome: Outcome, at: number): void {
    for (const granularity of ['minutes', 'hours'] as const) {
      const start = bucketStart(new Date(at), granularity);
      const key = `${connectionId}|${segment}|${granularity}|${start}`;
      const bucket = this.buckets.get(key) ?? {
        connection_id: connectionId,
        segment,
        granularity,
        start,
        counts: { opened: 0, paid: 0, failed: 0, left: 0 },
      };
      bucket.counts = addCounts(bucket.counts, { [outcome]: 1 });
      this.buckets.set(key, bucket);
    }
  }

  /** The windows as a container sees them: read again once its copy is `CACHE_MS` old. */
  windows(at: number): Map<string, Map<string, OutcomeWindows>> {
    if (!this.read || at - this.read.at >= CACHE_MS) {
      this.read = { at, windows: windowsOf([...this.buckets.values()], new Date(at)) };
    }
    return this.read.windows;
  }
}

interface Pending {
  at: number;
  connection: string;
  outcome: Outcome;
}

/** One strategy over the whole stream; every strategy sees the same buyers (`buyerDraws`). */
export function simulate(strategy: Strategy, seed: number, buyerDraws: readonly number[]): StrategyResult {
  const random = seededRandom(seed);
  const counters = new InMemoryCounters();
  const segment = segmentKey(segmentOf(AMOUNT, undefined));
  const pending: Pending[] = [];
  const result = { strategy, paid: 0, paidAfterDrift: 0, fees: 0, net: 0, explorations: 0, windowPaid: 0 };
  const series: number[] = [];
  for (let index = 0; index < CHECKOUTS; index++) {
    const at = index * ARRIVAL_MS;
    while (pending.length > 0 && (pending[0] as Pending).at <= at) {
      const done = pending.shift() as Pending;
      counters.add(done.connection, segment, done.outcome, done.at);
    }
    const { chosen, exploration } = choose(strategy, index, at, counters, segment, random);
    if (exploration) result.explorations++;
    counters.add(chosen, segment, 'opened', at);
    const paid = (buyerDraws[index] as number) < trueShare(chosen, index);
    pending.push({ at: at + OUTCOME_AFTER_MS, connection: chosen, outcome: paid ? 'paid' : 'failed' });
    if (paid) {
      result.paid++;
      result.windowPaid++;
      if (index >= CHECKOUTS / 3) result.paidAfterDrift++;
      result.fees += feeOf(chosen);
      result.net += Number(AMOUNT.value) - feeOf(chosen);
    }
    if ((index + 1) % WINDOW === 0) {
      series.push(result.windowPaid / WINDOW);
      result.windowPaid = 0;
    }
  }
  return {
    strategy,
    paid: result.paid,
    conversion: result.paid / CHECKOUTS,
    conversionAfterDrift: result.paidAfterDrift / (CHECKOUTS - Math.ceil(CHECKOUTS / 3)),
    fees: result.fees,
    net: result.net,
    explorations: result.explorations,
    series,
  };
}

function choose(
  strategy: Strategy,
  index: number,
  at: number,
  counters: InMemoryCounters,
  segment: string,
  random: () => number,
): { chosen: string; exploration: boolean } {
  if (strategy === 'oracle') return { chosen: oracleChoice(index, 'conversion'), exploration: false };
  const windows = counters.windows(at);
  const { connections, decision } = routeDecision(
    { account: ACCOUNT, mode: 'test', metadata: {}, amount: AMOUNT },
    routingOf(targets[strategy]),
    CONNECTIONS,
    random,
    { observed: (id) => windows.get(id)?.get(segment), isDown: () => false },
  );
  const first = connections[0];
  if (!first) throw new Error(`No connection routed by ${strategy}`);
  return { chosen: first.id, exploration: decision.exploration };
}

/** Every strategy, and the oracle's best net (`value`'s yardstick), on the same buyers. */
export function runSimulation(seed: number): { results: StrategyResult[]; oracleNet: StrategyResult } {
  const buyers = seededRandom(seed ^ 0x5eed);
  const buyerDraws = Array.from({ length: CHECKOUTS }, () => buyers());
  const results = STRATEGIES.map((strategy, offset) => simulate(strategy, seed + offset + 1, buyerDraws));
  return { results, oracleNet: simulateOracleNet(buyerDraws) };
}

/** The oracle that maximises the expected net, not the paid share. */
function simulateOracleNet(buyerDraws: readonly number[]): StrategyResult {
  let paid = 0;
  let fees = 0;
  for (let index = 0; index < CHECKOUTS; index++) {
    const chosen = oracleChoice(index, 'value');
    if ((buyerDraws[index] as number) < trueShare(chosen, index)) {
      paid++;
      fees += feeOf(chosen);
    }
  }
  const net = paid * Number(AMOUNT.value) - fees;
  return {
    strategy: 'oracle',
    paid,
    conversion: paid / CHECKOUTS,
    conversionAfterDrift: Number.NaN,
    fees,
    net,
    explorations: 0,
    series: [],
  };
}
