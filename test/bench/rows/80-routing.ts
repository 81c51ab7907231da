import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { routingChartSvg, type WorldSummary, worldsChartSvg } from '../routing-chart.ts';
import {
  CHECKOUTS,
  type Run,
  runFigures,
  runSimulation,
  type Strategy,
  type StrategyResult,
} from '../routing-simulation.ts';
import { WORLD_NAMES, WORLDS } from '../routing-worlds.ts';

/**
 * Routing that learns (docs/orchestration.md#measured-routing-that-learns): the real rule engine and strategies on
 * simulated streams of checkouts, in memory. First issue 36's world at one seed (`ROUTING_SEED`, default 36),
 * whose figures repeat, with the uplift its holdout measures; then every world (test/bench/routing-worlds.ts)
 * over `ROUTING_SEEDS` seeds drawn at run time (20; 5 with `--quick`), each target judged on the median and the
 * worst seed reported. It redraws docs/routing-simulation.svg and docs/routing-worlds.svg.
 */
const DEFAULT_SEED = 36;
const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs');

/** The targets of issue 36, recorded in docs/performance.md#routing-that-learns. */
export const routingTargets = {
  /** `conversion` (its learning arm) at most this many points below the oracle over the run. */
  maxPointsBelowOracle: 2,
  /** `conversion` at least this many points above static priority after the drift. */
  minPointsAbovePriorityAfterDrift: 8,
  /** `value`'s net (its learning arm's, per checkout) at least this share of the oracle's best net. */
  minValueNetShare: 0.95,
};

/** The strategies each world's seeds run: what the targets read. */
const SWEPT: readonly Strategy[] = ['priority', 'conversion', 'value', 'oracle'];

const pct = (share: number) => `${fmt(share * 100, 2)}%`;
const share = (paid: number, checkouts: number) => (checkouts === 0 ? Number.NaN : paid / checkouts);

function describeResult(result: StrategyResult): string {
  const { all, learning, holdout } = result;
  const arms =
    holdout.checkouts > 0
      ? `; learning arm ${pct(share(learning.paid, learning.checkouts))}, holdout ${pct(share(holdout.paid, holdout.checkouts))} of ${fmt(holdout.checkouts)}`
      : '';
  return `${pct(share(all.paid, all.checkouts))} paid (${pct(share(learning.afterDrift.paid, learning.afterDrift.checkouts))} after the drift)${arms}, fees ${fmt(all.fees)}, net ${fmt(all.net)}, ${fmt(result.explorations)} explorations`;
}

/** What the interval said and what was true, in points. */
export function upliftLine(result: StrategyResult): string {
  const difference = result.uplift?.difference_points;
  if (!difference || result.trueUpliftPoints === undefined) return 'no holdout checkout decided';
  return `${fmt(difference.estimate, 2)} points (95% interval ${fmt(difference.low, 2)} to ${fmt(difference.high, 2)}); true ${fmt(result.trueUpliftPoints, 2)}`;
}

export const covers = (result: StrategyResult) => {
  const difference = result.uplift?.difference_points;
  const truth = result.trueUpliftPoints;
  return difference !== null && difference !== undefined && truth !== undefined
    ? difference.low <= truth && truth <= difference.high
    : false;
};

function seedRows(bench: Parameters<BenchRow['measure']>[0], run: Run) {
  const { results } = run;
  const of = (strategy: Strategy) => results.find((result) => result.strategy === strategy) as StrategyResult;
  const oracle = of('oracle');
  const figures = runFigures(run);
  const subject = `${fmt(CHECKOUTS)} checkouts, ${run.world.name}, seed ${run.seed}`;
  for (const result of results) {
    bench.row({
      measure: `routing: ${result.strategy}`,
      subject,
      value: describeResult(result),
      baseline: `oracle ${pct(share(oracle.all.paid, oracle.all.checkouts))} paid; best net ${fmt(run.oracleNet)}`,
    });
  }
  bench.row({
    measure: "routing: conversion's holdout, the price of proof",
    subject,
    value: `${fmt(figures.holdoutPricePoints, 2)} points of the whole run below its learning arm`,
    baseline: '5% of checkouts routed by static priority',
  });
  bench.row({
    measure: 'routing: uplift the holdout measures, beside the true one',
    subject,
    value: upliftLine(of('conversion')),
    baseline: "Newcombe's hybrid score interval (functions/domain/uplift.ts)",
  });
}

type Target = { name: string; of: (run: Run) => number | undefined; budget: { max?: number; min?: number } };
const TARGETS: readonly Target[] = [
  {
    name: 'conversion below the oracle (points)',
    of: (run) => runFigures(run).pointsBelowOracle,
    budget: { max: routingTargets.maxPointsBelowOracle },
  },
  {
    name: 'conversion above priority after the drift (points)',
    of: (run) => runFigures(run).pointsAbovePriorityAfterDrift,
    budget: { min: routingTargets.minPointsAbovePriorityAfterDrift },
  },
  {
    name: "value's net / the oracle's",
    of: (run) => runFigures(run).valueNetShare,
    budget: { min: routingTargets.minValueNetShare },
  },
];

/** Seeds drawn now, so that no world is tuned to a seed; `ROUTING_SEEDS=1,2,3` replays given ones. */
function drawnSeeds(count: number): number[] {
  const given = process.env.ROUTING_SEEDS;
  if (given) return given.split(',').map(Number);
  return Array.from({ length: count }, () => randomInt(1, 1_000_000));
}

function summarize(runs: readonly Run[]): WorldSummary {
  const first = runs[0] as Run;
  const targets = TARGETS.flatMap((target) => {
    const values = runs.map(target.of).filter((value): value is number => value !== undefined);
    if (values.length === 0) return [];
    const sorted = [...values].sort((a, b) => a - b);
    const median =
      ((sorted[Math.floor((sorted.length - 1) / 2)] as number) +
        (sorted[Math.ceil((sorted.length - 1) / 2)] as number)) /
      2;
    const worst = target.budget.max !== undefined ? (sorted.at(-1) as number) : (sorted[0] as number);
    return [{ name: target.name, values, median, worst, budget: target.budget }];
  });
  const uplift = runs.flatMap((run) => {
    const conversion = run.results.find((result) => result.strategy === 'conversion');
    const difference = conversion?.uplift?.difference_points;
    if (!difference || conversion?.trueUpliftPoints === undefined) return [];
    return [{ seed: run.seed, ...difference, truth: conversion.trueUpliftPoints }];
  });
  return {
    world: first.world.name,
    title: first.world.title,
    seeds: runs.map((run) => run.seed),
    targets,
    uplift,
  };
}

export default {
  async measure(bench) {
    const seed = Number(process.env.ROUTING_SEED ?? DEFAULT_SEED);
    const run = runSimulation(seed);
    seedRows(bench, run);
    writeFileSync(join(DOCS, 'routing-simulation.svg'), await routingChartSvg(run.results));
    const seeds = drawnSeeds(bench.plan.quick ? 5 : 20);
    const summaries = WORLD_NAMES.map((name) =>
      summarize(seeds.map((worldSeed) => runSimulation(worldSeed, WORLDS[name], SWEPT))),
    );
    for (const summary of summaries) {
      const subject = `${summary.world}: ${summary.title}; ${summary.seeds.length} seeds`;
      for (const target of summary.targets) {
        bench.row({
          measure: `routing worlds: ${target.name}, median`,
          subject,
          value: `${fmt(target.median, 2)} (worst seed ${fmt(target.worst, 2)})`,
          baseline:
            target.budget.max !== undefined
              ? `at most ${target.budget.max}`
              : `at least ${target.budget.min}`,
          ratio: target.median,
          budget: target.budget,
        });
      }
      const covered = summary.uplift.filter((u) => u.low <= u.truth && u.truth <= u.high).length;
      bench.row({
        measure: 'routing worlds: uplift intervals that cover the true difference',
        subject,
        value: `${covered} of ${summary.uplift.length}`,
        baseline: '95% intervals: about 19 of 20',
      });
    }
    bench.record('routing', {
      seed,
      results: run.results.map(({ series, ...rest }) => rest),
      oracleNet: run.oracleNet,
      worlds: summaries,
    });
    writeFileSync(
      join(DOCS, 'routing-worlds.svg'),
      await worldsChartSvg(summaries, routingTargets.maxPointsBelowOracle),
    );
  },
} satisfies BenchRow;
