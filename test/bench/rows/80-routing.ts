import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { routingChartSvg } from '../routing-chart.ts';
import { CHECKOUTS, runSimulation, type Strategy, type StrategyResult } from '../routing-simulation.ts';

/**
 * Routing that learns (docs/orchestration.md#measured): the real rule engine and strategies on a simulated stream
 * of checkouts whose connections drift, in memory. Seeded (`ROUTING_SEED`, default 36) so its figures repeat;
 * it redraws docs/routing-simulation.svg from the run.
 */
const DEFAULT_SEED = 36;
const CHART = join(import.meta.dirname, '..', '..', '..', 'docs', 'routing-simulation.svg');

/** The targets of issue 36, recorded in docs/performance.md#routing-that-learns. */
export const routingTargets = {
  /** `conversion` at most this many points below the oracle over the run. */
  maxPointsBelowOracle: 2,
  /** `conversion` at least this many points above static priority after the drift. */
  minPointsAbovePriorityAfterDrift: 8,
  /** `value`'s net at least this share of the oracle's best net. */
  minValueNetShare: 0.95,
};

const pct = (share: number) => `${fmt(share * 100, 2)}%`;

export default {
  async measure(bench) {
    const seed = Number(process.env.ROUTING_SEED ?? DEFAULT_SEED);
    const { results, oracleNet } = runSimulation(seed);
    const of = (strategy: Strategy) =>
      results.find((result) => result.strategy === strategy) as StrategyResult;
    const conversion = of('conversion');
    const priority = of('priority');
    const oracle = of('oracle');
    const value = of('value');
    const subject = `${fmt(CHECKOUTS)} checkouts, seed ${seed}`;
    for (const result of results) {
      bench.row({
        measure: `routing: ${result.strategy}`,
        subject,
        value: `${pct(result.conversion)} paid (${pct(result.conversionAfterDrift)} after the drift), fees ${fmt(result.fees)}, net ${fmt(result.net)}, ${fmt(result.explorations)} explorations`,
        baseline: `oracle ${pct(oracle.conversion)} paid; best net ${fmt(oracleNet.net)}`,
      });
    }
    bench.row({
      measure: 'routing: conversion below the oracle',
      subject,
      value: `${fmt((oracle.conversion - conversion.conversion) * 100, 2)} points`,
      baseline: `at most ${routingTargets.maxPointsBelowOracle}`,
      ratio: (oracle.conversion - conversion.conversion) * 100,
      budget: { max: routingTargets.maxPointsBelowOracle },
    });
    bench.row({
      measure: 'routing: conversion above priority after the drift',
      subject,
      value: `${fmt((conversion.conversionAfterDrift - priority.conversionAfterDrift) * 100, 2)} points`,
      baseline: `at least ${routingTargets.minPointsAbovePriorityAfterDrift}`,
      ratio: (conversion.conversionAfterDrift - priority.conversionAfterDrift) * 100,
      budget: { min: routingTargets.minPointsAbovePriorityAfterDrift },
    });
    bench.row({
      measure: "routing: value's net / the oracle's",
      subject,
      value: `${fmt(value.net)} / ${fmt(oracleNet.net)}`,
      baseline: `at least ${routingTargets.minValueNetShare}`,
      ratio: value.net / oracleNet.net,
      budget: { min: routingTargets.minValueNetShare },
    });
    bench.record('routing', {
      seed,
      results: results.map(({ series, ...rest }) => rest),
      oracleNet: oracleNet.net,
    });
    writeFileSync(CHART, await routingChartSvg(results));
  },
} satisfies BenchRow;
