import {
  bucketStart,
  type Outcome,
  type OutcomeBucket,
  type OutcomeWindows,
  segmentKey,
  segmentOf,
  windowsOf,
} from '../../functions/domain/outcomes.ts';
import {
  type Holdout,
  learningSignals,
  type Routing,
  type RoutingTarget,
  routeDecision,
} from '../../functions/domain/routing.ts';
import { expectedFee } from '../../functions/domain/strategies.ts';
import {
  type ArmBucket,
  addArmCounts,
  NO_ARM_COUNTS,
  type RuleUplift,
  routingUplift,
} from '../../functions/domain/uplift.ts';
import { SimulatedHealth } from './routing-health.ts';
import {
  AMOUNT,
  ARRIVAL_MS,
  BENCH_ACCOUNT,
  CHECKOUTS,
  type Checkout,
  WORLDS,
  type World,
} from './routing-worlds.ts';

export { AMOUNT, ARRIVAL_MS, CHECKOUTS, OUTCOME_AFTER_MS } from './routing-worlds.ts';

/**
 * The routing simulation of docs/orchestration.md#measured (bench row 80-routing): a world's stream of checkouts
 * (test/bench/routing-worlds.ts), routed by the real rule engine and strategies (functions/domain/routing.ts,
 * strategies.ts) on counters kept as the service keeps them (the buckets of functions/domain/outcomes.ts), read as
 * a container reads them: refreshed every `CACHE_MS`, so each decision sees windows up to that stale. A learning
 * strategy holds out what a merchant's rule holds out by default (5% routed by static priority), and its uplift
 * is computed as `GET /v1/routing/uplift` computes it (functions/domain/uplift.ts). Seeded, so a run repeats.
 */

/** How stale a container's read of the counters may be (functions/use-cases/outcome-recording.ts). */
export const CACHE_MS = 10_000;
/** Simulated time starts here (a day of its own for the uplift's counters). */
const START = Date.parse('2026-11-30T00:00:00.000Z');

export const STRATEGIES = ['priority', 'split', 'conversion', 'cost', 'value', 'oracle'] as const;
export type Strategy = (typeof STRATEGIES)[number];
const LEARNING: readonly Strategy[] = ['conversion', 'cost', 'value'];

function targetOf(
  world: World,
  strategy: Exclude<Strategy, 'oracle'>,
  holdout: Holdout | undefined,
): RoutingTarget {
  const ids = [...world.priority];
  if (strategy === 'priority') return { priority: ids };
  if (strategy === 'split') {
    const share = Math.floor(100 / ids.length);
    return {
      split: ids.map((connection, i) => ({
        connection,
        weight: i === 0 ? 100 - share * (ids.length - 1) : share,
      })),
    };
  }
  return { optimize: strategy, connections: ids, ...(holdout ? { holdout } : {}) };
}

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

/** What one arm's checkouts became, with what the simulation alone knows: the sum of their true paid shares. */
export interface ArmTally {
  checkouts: number;
  paid: number;
  /** The sum of each checkout's true probability of being paid where it was routed. */
  expected: number;
  fees: number;
  net: number;
  afterDrift: { checkouts: number; paid: number };
}

const emptyTally = (): ArmTally => ({
  checkouts: 0,
  paid: 0,
  expected: 0,
  fees: 0,
  net: 0,
  afterDrift: { checkouts: 0, paid: 0 },
});

export interface StrategyResult {
  strategy: Strategy;
  world: World['name'];
  /** Every checkout, and each arm of a learning strategy (`holdout` empty for the others). */
  all: ArmTally;
  learning: ArmTally;
  holdout: ArmTally;
  explorations: number;
  /** Paid share per window of `WINDOW` checkouts, for the chart. */
  series: number[];
  /** For a learning strategy: the uplift as the service reports it, and the true difference (both in points). */
  uplift: RuleUplift | undefined;
  trueUpliftPoints: number | undefined;
}

/** Checkouts per point of the chart. */
export const WINDOW = 500;

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
        counts: { opened: 0, paid: 0, failed: 0, left: 0, outage: 0 },
      };
      bucket.counts[outcome]++;
      this.buckets.set(key, bucket);
    }
  }

  /** The windows as a container sees them: read again once its copy is `CACHE_MS` old. */
  windows(at: number): Map<string, Map<string, OutcomeWindows>> {
    if (!this.read || at - this.read.at >= CACHE_MS) {
      // Buckets older than a day are never read again.
      for (const [key, bucket] of this.buckets) {
        if (bucket.start < at - 26 * 3_600_000) this.buckets.delete(key);
      }
      this.read = { at, windows: windowsOf([...this.buckets.values()], new Date(at)) };
    }
    return this.read.windows;
  }
}

interface Pending {
  at: number;
  connection: string;
  segment: string;
  outcome: Outcome;
  /** The session was the trial of a connection down for outages (`SimulatedHealth`). */
  trial: boolean;
}

/** The same buyers and links for every strategy of a run: each checkout's link and whether its buyer would pay. */
export interface Stream {
  checkouts: Checkout[];
  /** A session at a connection of true share p is paid when the buyer's draw is below p. */
  draws: number[];
}

export function streamOf(world: World, seed: number, length = CHECKOUTS): Stream {
  const buyers = seededRandom(seed ^ 0x5eed);
  const links = seededRandom(seed ^ 0x11ce);
  return {
    checkouts: Array.from({ length }, (_, index) => world.checkout(index, links())),
    draws: Array.from({ length }, () => buyers()),
  };
}

const feeOf = (world: World, id: string, checkout: Checkout) =>
  expectedFee(
    world.connections.find((c) => c.id === id)?.fees,
    AMOUNT,
    checkout.methods?.length === 1 ? checkout.methods[0] : undefined,
  ) ?? 0;

/** The connection an oracle picks: the highest true paid share, or (`value`) the highest true expected net. */
export function oracleChoice(
  world: World,
  index: number,
  checkout: Checkout,
  goal: 'conversion' | 'value',
): string {
  const worth = (id: string) =>
    world.trueShare(id, index, checkout) *
    (goal === 'value' ? Number(AMOUNT.value) - feeOf(world, id, checkout) : 1);
  return world.priority.reduce((best, id) => (worth(id) > worth(best) ? id : best));
}

export interface RunOptions {
  /** The learning strategies' holdout; absent: the default a merchant's rule gets. */
  holdout?: Holdout | undefined;
}

/** One strategy over a world's stream. */
export function simulate(
  world: World,
  strategy: Strategy,
  seed: number,
  stream: Stream,
  options: RunOptions = {},
): StrategyResult {
  const random = seededRandom(seed);
  const counters = new InMemoryCounters();
  const health = new SimulatedHealth();
  const pending: Pending[] = [];
  const tallies = { all: emptyTally(), learning: emptyTally(), holdout: emptyTally() };
  const arms = new Map<string, ArmBucket>();
  const series: number[] = [];
  let explorations = 0;
  let windowPaid = 0;
  const routing: Routing | undefined =
    strategy === 'oracle'
      ? undefined
      : {
          rules: [{ name: 'bench', when: {}, then: targetOf(world, strategy, options.holdout) }],
          default: [...world.priority],
        };
  for (let index = 0; index < stream.checkouts.length; index++) {
    const at = START + index * ARRIVAL_MS;
    settle(pending, at, counters, health);
    const checkout = stream.checkouts[index] as Checkout;
    const segment = segmentKey(segmentOf(AMOUNT, checkout.methods));
    const choice = routing
      ? choose(world, routing, checkout, at, { counters, health }, segment, random)
      : {
          chosen: oracleChoice(world, index, checkout, 'conversion'),
          trial: false,
          exploration: false,
          holdout: false,
        };
    if (choice.exploration) explorations++;
    counters.add(choice.chosen, segment, 'opened', at);
    const share = world.trueShare(choice.chosen, index, checkout);
    const paid = (stream.draws[index] as number) < share;
    const after = at + world.outcomeAfterMs(checkout);
    const unpaid = world.outage?.(choice.chosen, index) ? 'outage' : 'failed';
    const outcome = paid ? 'paid' : unpaid;
    enqueue(pending, { at: after, connection: choice.chosen, segment, outcome, trial: choice.trial });
    const fee = feeOf(world, choice.chosen, checkout);
    const afterDrift = world.driftAt !== undefined && index >= world.driftAt;
    for (const tally of [tallies.all, choice.holdout ? tallies.holdout : tallies.learning]) {
      count(tally, { paid, share, fee, afterDrift });
    }
    if (LEARNING.includes(strategy)) countArm(arms, choice.holdout, segment, paid, fee, at);
    if (paid) windowPaid++;
    if ((index + 1) % WINDOW === 0) {
      series.push(windowPaid / WINDOW);
      windowPaid = 0;
    }
  }
  const end = new Date(START + stream.checkouts.length * ARRIVAL_MS);
  const uplift = LEARNING.includes(strategy)
    ? routingUplift([...arms.values()], '7d', end).rules[0]
    : undefined;
  const { learning, holdout } = tallies;
  return {
    strategy,
    world: world.name,
    ...tallies,
    explorations,
    series,
    uplift,
    trueUpliftPoints:
      uplift && holdout.checkouts > 0
        ? (learning.expected / learning.checkouts - holdout.expected / holdout.checkouts) * 100
        : undefined,
  };
}

/** Keeps `pending` ordered by when each outcome is known (outcomes of different delays interleave). */
function enqueue(pending: Pending[], entry: Pending): void {
  let low = 0;
  let high = pending.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((pending[middle] as Pending).at <= entry.at) low = middle + 1;
    else high = middle;
  }
  pending.splice(low, 0, entry);
}

function settle(pending: Pending[], at: number, counters: InMemoryCounters, health: SimulatedHealth): void {
  while (pending.length > 0 && (pending[0] as Pending).at <= at) {
    const done = pending.shift() as Pending;
    counters.add(done.connection, done.segment, done.outcome, done.at);
    health.outcome(done.connection, done.outcome, done.at, done.trial);
  }
}

function count(
  tally: ArmTally,
  checkout: { paid: boolean; share: number; fee: number; afterDrift: boolean },
): void {
  tally.checkouts++;
  tally.expected += checkout.share;
  if (checkout.afterDrift) tally.afterDrift.checkouts++;
  if (!checkout.paid) return;
  tally.paid++;
  tally.fees += checkout.fee;
  tally.net += Number(AMOUNT.value) - checkout.fee;
  if (checkout.afterDrift) tally.afterDrift.paid++;
}

/** The arms' counters as the service adds them up (`armChangeOf`), every checkout decided. */
function countArm(
  arms: Map<string, ArmBucket>,
  holdout: boolean,
  segment: string,
  paid: boolean,
  fee: number,
  at: number,
) {
  const arm = holdout ? 'holdout' : 'learning';
  const key = `${arm}|${segment}`;
  const known = arms.get(key) ?? {
    account: BENCH_ACCOUNT,
    mode: 'test',
    day: new Date(at).toISOString().slice(0, 10),
    rule: 'bench',
    goal: 'conversion',
    arm,
    segment,
    counts: NO_ARM_COUNTS,
  };
  const net = Number(AMOUNT.value) - fee;
  arms.set(key, {
    ...known,
    counts: addArmCounts(known.counts, {
      opened: 1,
      ...(paid ? { paid: 1, amount: Number(AMOUNT.value), net, net_sq: net * net } : { failed: 1 }),
    }),
  });
}

function choose(
  world: World,
  routing: Routing,
  checkout: Checkout,
  at: number,
  { counters, health }: { counters: InMemoryCounters; health: SimulatedHealth },
  segment: string,
  random: () => number,
): { chosen: string; trial: boolean; exploration: boolean; holdout: boolean } {
  const windows = counters.windows(at);
  const { connections, decision } = routeDecision(
    { account: BENCH_ACCOUNT, mode: 'test', metadata: {}, amount: AMOUNT, payment_methods: checkout.methods },
    routing,
    world.connections,
    random,
    { ...learningSignals(windows, segment), isDown: (id) => health.isDown(id, at) },
  );
  const opened = health.open(
    connections.map((connection) => connection.id),
    at,
  );
  if (!opened) throw new Error(`No connection open in ${world.name}`);
  return {
    chosen: opened.id,
    trial: opened.trial,
    exploration: decision.exploration,
    holdout: decision.holdout,
  };
}

/** What a run reports: each strategy on the same buyers, and the oracle of the best net (`value`'s yardstick). */
export interface Run {
  world: World;
  seed: number;
  results: StrategyResult[];
  oracleNet: number;
}

/** The strategies of a run in one world (all of them unless named), every one on the same buyers. */
export function runSimulation(
  seed: number,
  world: World = WORLDS.step,
  strategies: readonly Strategy[] = STRATEGIES,
  options: RunOptions = {},
): Run {
  const stream = streamOf(world, seed);
  const results = strategies.map((strategy) =>
    simulate(world, strategy, seed + STRATEGIES.indexOf(strategy) + 1, stream, options),
  );
  return { world, seed, results, oracleNet: oracleNet(world, stream) };
}

/** The net the oracle that maximises the expected net keeps. */
function oracleNet(world: World, stream: Stream): number {
  let net = 0;
  stream.checkouts.forEach((checkout, index) => {
    const chosen = oracleChoice(world, index, checkout, 'value');
    if ((stream.draws[index] as number) < world.trueShare(chosen, index, checkout)) {
      net += Number(AMOUNT.value) - feeOf(world, chosen, checkout);
    }
  });
  return net;
}

/** The figures a run is held to (docs/performance.md#routing-that-learns), from its learning arms. */
export function runFigures(run: Run) {
  const of = (strategy: Strategy) => run.results.find((result) => result.strategy === strategy);
  const share = (tally: ArmTally | undefined) =>
    tally && tally.checkouts > 0 ? tally.paid / tally.checkouts : Number.NaN;
  const afterDrift = (tally: ArmTally | undefined) =>
    tally && tally.afterDrift.checkouts > 0 ? tally.afterDrift.paid / tally.afterDrift.checkouts : Number.NaN;
  const [conversion, priority, oracle, value] = (['conversion', 'priority', 'oracle', 'value'] as const).map(
    of,
  );
  const valueNet = value ? (value.learning.net / value.learning.checkouts) * value.all.checkouts : Number.NaN;
  return {
    pointsBelowOracle: (share(oracle?.all) - share(conversion?.learning)) * 100,
    pointsAbovePriorityAfterDrift:
      run.world.driftAt === undefined
        ? undefined
        : (afterDrift(conversion?.learning) - afterDrift(priority?.all)) * 100,
    valueNetShare: valueNet / run.oracleNet,
    /** What the holdout costs: the whole run's paid share below the learning arm's, in points. */
    holdoutPricePoints: (share(conversion?.learning) - share(conversion?.all)) * 100,
  };
}
