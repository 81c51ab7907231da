import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromStoredRouting, toStoredRouting } from '../../functions/adapters/dynamodb/routing-item.ts';
import {
  NO_OUTCOMES,
  type OutcomeCounts,
  type OutcomeWindows,
  outcomeOf,
} from '../../functions/domain/outcomes.ts';
import { type RoutedLink, type Routing, routeDecision } from '../../functions/domain/routing.ts';
import {
  chooseByStrategy,
  EXPLORATION_RATE,
  expectedFee,
  feeLineFor,
  OPTIMIZE_GOALS,
  type OptimizeGoal,
  sampleBeta,
} from '../../functions/domain/strategies.ts';
import { seededRandom } from '../../lib/local/seeded-random.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

const connection = sandboxConnection;
const link: RoutedLink = {
  account: 'acme',
  mode: 'test',
  amount: { value: '50.00', currency: 'EUR' },
  metadata: null,
};
const counts = (paid: number, failed: number): OutcomeCounts => ({
  ...NO_OUTCOMES,
  opened: paid + failed,
  paid,
  failed,
});
const windows = (paid: number, failed: number): OutcomeWindows => ({
  last_hour: counts(paid, failed),
  last_24h: counts(paid, failed),
});

/** How often each connection comes first over `runs` decisions. */
function firstChoices(goal: OptimizeGoal, observed: Record<string, OutcomeWindows>, runs = 2000, seed = 7) {
  const random = seededRandom(seed);
  const candidates = Object.keys(observed).map((id) => connection(id, { fees: [{ percent: 1, fixed: 0 }] }));
  const tally = new Map<string, number>();
  let explored = 0;
  for (let i = 0; i < runs; i++) {
    const choice = chooseByStrategy({
      goal,
      candidates,
      observed: (id) => observed[id],
      isDown: () => false,
      amount: link.amount,
      method: undefined,
      random,
    });
    const first = choice.order[0]?.id as string;
    tally.set(first, (tally.get(first) ?? 0) + 1);
    if (choice.exploration) explored++;
  }
  return { tally, explored };
}

describe('optimize: conversion', () => {
  it('sends most sessions to the connection paid most often, and still explores the others that could be the best', () => {
    const { tally, explored } = firstChoices('conversion', {
      pc_close: windows(8, 2),
      pc_high: windows(90, 10),
    });
    expect(tally.get('pc_high') ?? 0).toBeGreaterThan(1600);
    expect(tally.get('pc_close') ?? 0).toBeGreaterThan(0);
    expect(explored / 2000).toBeGreaterThan(EXPLORATION_RATE / 2);
  });

  it('explores a connection seen little, never one measured far below the best, and still explores as often', () => {
    const { tally, explored } = firstChoices('conversion', {
      pc_low: windows(50, 50),
      pc_high: windows(900, 100),
      pc_new: windows(0, 0),
    });
    expect(tally.get('pc_low') ?? 0).toBe(0);
    expect(tally.get('pc_new') ?? 0).toBeGreaterThan(0);
    expect(explored / 2000).toBeGreaterThan(EXPLORATION_RATE / 2);
  });

  it('eliminates a connection paid less than half as often as the best over 50 sessions, keeping it last', () => {
    const choice = chooseByStrategy({
      goal: 'conversion',
      candidates: [connection('pc_bad'), connection('pc_good')],
      observed: (id) => (id === 'pc_bad' ? windows(10, 90) : windows(80, 20)),
      isDown: () => false,
      amount: link.amount,
      method: undefined,
      random: () => 0.5,
    });
    expect(choice.estimates.find((estimate) => estimate.connection === 'pc_bad')?.eliminated).toBe(true);
    expect(choice.order.map((c) => c.id)).toEqual(['pc_good', 'pc_bad']);
  });

  it('judges no connection on fewer than 50 sessions', () => {
    const choice = chooseByStrategy({
      goal: 'conversion',
      candidates: [connection('pc_new'), connection('pc_good')],
      observed: (id) => (id === 'pc_new' ? windows(0, 10) : windows(80, 20)),
      isDown: () => false,
      amount: link.amount,
      method: undefined,
      random: () => 0.5,
    });
    expect(choice.estimates.every((estimate) => !estimate.eliminated)).toBe(true);
  });
});

describe('optimize: cost and value', () => {
  it('cost puts the lowest expected fee first', () => {
    const cheap = connection('pc_cheap', { fees: [{ percent: 1, fixed: 0.1 }] });
    const dear = connection('pc_dear', { fees: [{ percent: 3, fixed: 0.3 }] });
    const choice = chooseByStrategy({
      goal: 'cost',
      candidates: [dear, cheap],
      observed: () => undefined,
      isDown: () => false,
      amount: link.amount,
      method: undefined,
      random: () => 0.5,
    });
    expect(choice.order.map((c) => c.id)).toEqual(['pc_cheap', 'pc_dear']);
    expect(choice.estimates.find((e) => e.connection === 'pc_cheap')?.expected_fee).toBe(0.6);
  });

  it('value prefers a connection paid as often but cheaper, and one paid far more often though dearer', () => {
    const observed = { pc_a: windows(900, 100), pc_b: windows(900, 100) };
    const random = seededRandom(3);
    const input = (fees: Record<string, number>, seen: Record<string, OutcomeWindows>) => ({
      goal: 'value' as const,
      candidates: Object.keys(fees).map((id) =>
        connection(id, { fees: [{ percent: fees[id] as number, fixed: 0 }] }),
      ),
      observed: (id: string) => seen[id],
      isDown: () => false,
      amount: link.amount,
      method: undefined,
      random,
    });
    expect(chooseByStrategy(input({ pc_a: 1, pc_b: 5 }, observed)).order[0]?.id).toBe('pc_a');
    const dearButPaid = { pc_a: windows(500, 500), pc_b: windows(950, 50) };
    expect(chooseByStrategy(input({ pc_a: 1, pc_b: 5 }, dearButPaid)).order[0]?.id).toBe('pc_b');
  });

  it('prices a payment with the most specific matching fee line', () => {
    const lines = [
      { percent: 2, fixed: 0.3 },
      { percent: 1.5, fixed: 0.25, currency: 'EUR' },
      { percent: 1, fixed: 0.2, currency: 'EUR', method: 'card' as const },
    ];
    expect(feeLineFor(lines, 'EUR', 'card')?.percent).toBe(1);
    expect(feeLineFor(lines, 'EUR', 'ideal')?.percent).toBe(1.5);
    expect(feeLineFor(lines, 'USD', undefined)?.percent).toBe(2);
    expect(expectedFee(lines, { value: '100.00', currency: 'EUR' }, undefined)).toBe(1.75);
    expect(expectedFee([], link.amount, undefined)).toBeNull();
  });
});

describe('Beta sampling', () => {
  it('draws around the mean of Beta(a, b)', () => {
    const random = seededRandom(11);
    const draws = Array.from({ length: 4000 }, () => sampleBeta(81, 21, random));
    const mean = draws.reduce((sum, draw) => sum + draw, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.77);
    expect(mean).toBeLessThan(0.82);
    expect(draws.every((draw) => draw > 0 && draw < 1)).toBe(true);
  });
});

describe('outcomes of payment changes', () => {
  it('counts an opened session, then paid, failed or left', () => {
    const pending = { status: 'pending' as const, session_id: 'cs_1' };
    expect(outcomeOf(pending, undefined)).toBe('opened');
    expect(outcomeOf({ status: 'failed', session_id: null }, undefined)).toBeUndefined();
    expect(outcomeOf({ ...pending, status: 'succeeded' }, pending)).toBe('paid');
    expect(outcomeOf({ ...pending, status: 'failed' }, pending)).toBe('failed');
    expect(outcomeOf({ ...pending, status: 'expired' }, pending)).toBe('left');
    expect(outcomeOf({ ...pending, status: 'succeeded' }, { ...pending, status: 'expired' })).toBeUndefined();
  });
});

describe('routing properties of every strategy', () => {
  it('never routes to a disabled or foreign connection, nor puts a down one before one that is up', () => {
    const strategy = fc.oneof(
      ...OPTIMIZE_GOALS.map((goal) => fc.constant({ optimize: goal })),
      fc.constant({ priority: true }),
      fc.constant({ split: true }),
    );
    const candidate = fc.record({
      enabled: fc.boolean(),
      foreign: fc.constantFrom('none', 'account', 'mode'),
      down: fc.boolean(),
      paid: fc.nat(200),
      failed: fc.nat(200),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 6 }),
        strategy,
        fc.integer(),
        (specs, kind, seed) => {
          const connections = specs.map((spec, index) =>
            connection(`pc_${index}`, {
              enabled: spec.enabled,
              account: spec.foreign === 'account' ? 'other' : 'acme',
              mode: spec.foreign === 'mode' ? 'live' : 'test',
            }),
          );
          const ids = connections.map((c) => c.id);
          const then =
            'optimize' in kind
              ? // A holdout routes by its baseline: it is held to the same properties.
                {
                  optimize: kind.optimize,
                  connections: ids,
                  holdout: { share: 0.3, baseline: [...ids].reverse() },
                }
              : 'priority' in kind
                ? { priority: ids }
                : { split: ids.map((id) => ({ connection: id, weight: 1 })) };
          const routing: Routing = { rules: [{ name: 'all', when: {}, then }], default: [] };
          const { connections: routed, decision } = routeDecision(
            link,
            routing,
            connections,
            seededRandom(seed),
            {
              observed: (id) =>
                windows(specs[Number(id.slice(3))]?.paid ?? 0, specs[Number(id.slice(3))]?.failed ?? 0),
              isDown: (id) => specs[Number(id.slice(3))]?.down === true,
            },
          );
          const specOf = (id: string) => specs[Number(id.slice(3))];
          for (const candidate of routed) {
            expect(specOf(candidate.id)?.enabled).toBe(true);
            expect(specOf(candidate.id)?.foreign).toBe('none');
          }
          // The first choice is down only when every usable candidate is (failover then skips them all), and
          // down ones come after every one that is up.
          const downFrom = routed.findIndex((candidate) => specOf(candidate.id)?.down);
          if (downFrom >= 0) {
            expect(routed.slice(downFrom).every((candidate) => specOf(candidate.id)?.down)).toBe(true);
          }
          if ('optimize' in kind) expect(decision.strategy).toBe(kind.optimize);
        },
      ),
    );
  });
});

describe('a routing decision as the table keeps it', () => {
  it('round-trips, storing a decision with nothing learned in a few bytes', () => {
    const plain = routeDecision(link, null, [connection('pc_one')], () => 0).decision;
    const chosen = { ...plain, chosen: 'pc_one' };
    expect(toStoredRouting(chosen)).toEqual({ s: 'enabled', g: 'EUR|any|10-100' });
    expect(fromStoredRouting(toStoredRouting(chosen), 'pc_one')).toEqual(chosen);

    const learned = chooseByStrategy({
      goal: 'conversion',
      candidates: [connection('pc_a'), connection('pc_b', { fees: [{ percent: 1, fixed: 0 }] })],
      observed: (id) => (id === 'pc_a' ? windows(10, 90) : windows(80, 20)),
      isDown: () => false,
      amount: link.amount,
      method: undefined,
      random: () => 0.5,
    });
    const decision = {
      ...plain,
      rule: 'learn',
      strategy: 'conversion' as const,
      candidates: learned.estimates,
      chosen: 'pc_b',
      exploration: true,
      recovery: true,
    };
    expect(fromStoredRouting(toStoredRouting(decision), 'pc_b')).toEqual(decision);
  });
});
