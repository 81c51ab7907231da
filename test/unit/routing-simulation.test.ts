import { describe, expect, it } from 'vitest';
import {
  CHECKOUTS,
  runSimulation,
  type Strategy,
  seededRandom,
  simulate,
} from '../bench/routing-simulation.ts';
import { routingTargets } from '../bench/rows/80-routing.ts';

const draws = (seed: number) => {
  const random = seededRandom(seed);
  return Array.from({ length: CHECKOUTS }, () => random());
};

describe('the routing simulation of bench row 80-routing', () => {
  it('repeats its figures from the same seed', () => {
    const buyers = draws(7);

    const first = simulate('conversion', 7, buyers);
    const second = simulate('conversion', 7, buyers);

    expect(second).toEqual(first);
  });

  it('meets the targets of issue 36 at the seed the benchmark records', () => {
    const { results, oracleNet } = runSimulation(36);
    const of = (strategy: Strategy) => results.find((result) => result.strategy === strategy);
    const [conversion, priority, oracle, value] = (
      ['conversion', 'priority', 'oracle', 'value'] as const
    ).map(of);

    expect((oracle?.conversion ?? 0) - (conversion?.conversion ?? 0)).toBeLessThanOrEqual(
      routingTargets.maxPointsBelowOracle / 100,
    );
    expect(
      (conversion?.conversionAfterDrift ?? 0) - (priority?.conversionAfterDrift ?? 0),
    ).toBeGreaterThanOrEqual(routingTargets.minPointsAbovePriorityAfterDrift / 100);
    expect((value?.net ?? 0) / oracleNet.net).toBeGreaterThanOrEqual(routingTargets.minValueNetShare);
  });

  it('explores on at least 5% of the decisions of a learning strategy', () => {
    const result = simulate('conversion', 36, draws(36));

    expect(result.explorations / CHECKOUTS).toBeGreaterThanOrEqual(0.05 * 0.9);
  });
});
