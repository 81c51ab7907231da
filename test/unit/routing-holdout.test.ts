import { describe, expect, it } from 'vitest';
import { fromStoredRouting, toStoredRouting } from '../../functions/adapters/dynamodb/routing-item.ts';
import { NO_OUTCOMES, type OutcomeWindows } from '../../functions/domain/outcomes.ts';
import {
  DEFAULT_HOLDOUT_SHARE,
  type OptimizeTarget,
  type RoutedLink,
  type Routing,
  routeDecision,
  routingProblems,
} from '../../functions/domain/routing.ts';
import { chooseByStrategy } from '../../functions/domain/strategies.ts';
import { seededRandom } from '../../lib/local/seeded-random.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

const connection = sandboxConnection;
const link: RoutedLink = {
  account: 'acme',
  mode: 'test',
  amount: { value: '50.00', currency: 'EUR' },
  metadata: null,
};
const connections = [connection('pc_a'), connection('pc_b'), connection('pc_c')];
/** pc_c is paid far more often: learning puts it first, the baseline (pc_a, pc_b, pc_c) never does. */
const observed = (id: string): OutcomeWindows => {
  const paid = id === 'pc_c' ? 95 : 20;
  const counts = { ...NO_OUTCOMES, opened: 100, paid, failed: 100 - paid };
  return { last_hour: counts, last_24h: counts };
};
const routingWith = (then: Partial<OptimizeTarget> = {}): Routing => ({
  rules: [
    {
      name: 'learn',
      when: {},
      then: { optimize: 'conversion', connections: ['pc_a', 'pc_b', 'pc_c'], ...then },
    },
  ],
  default: ['pc_b'],
});

function decisions(routing: Routing, runs: number, seed = 5, isDown = (_id: string) => false) {
  const random = seededRandom(seed);
  return Array.from({ length: runs }, () =>
    routeDecision(link, routing, connections, random, { observed, isDown }),
  );
}

describe('the holdout of an optimize rule', () => {
  it('routes the share it names by its baseline, in order, drawn per checkout, and says so', () => {
    const routed = decisions(routingWith({ holdout: { share: 0.2, baseline: ['pc_b', 'pc_a'] } }), 4000);
    const held = routed.filter((route) => route.decision.holdout);

    expect(held.length / routed.length).toBeGreaterThan(0.18);
    expect(held.length / routed.length).toBeLessThan(0.22);
    for (const route of held) {
      expect(route.connections.map((c) => c.id)).toEqual(['pc_b', 'pc_a']);
      expect(route.decision).toMatchObject({ rule: 'learn', strategy: 'conversion', exploration: false });
    }
    // Drawn per checkout, not in runs: a held-out checkout is followed by a learned one about as often as any.
    const afterHeld = routed.filter((_, index) => index > 0 && routed[index - 1]?.decision.holdout);
    expect(afterHeld.filter((route) => !route.decision.holdout).length / afterHeld.length).toBeGreaterThan(
      0.7,
    );
    expect(routed.filter((route) => !route.decision.holdout).every((r) => r.decision.holdout === false)).toBe(
      true,
    );
  });

  it("holds out 5% by default, on the rule's own order", () => {
    const routed = decisions(routingWith(), 8000);
    const held = routed.filter((route) => route.decision.holdout);

    expect(DEFAULT_HOLDOUT_SHARE).toBe(0.05);
    expect(held.length / routed.length).toBeGreaterThan(0.04);
    expect(held.length / routed.length).toBeLessThan(0.06);
    expect(held.every((route) => route.connections[0]?.id === 'pc_a')).toBe(true);
    // Learning puts pc_c first but for its explorations.
    const learned = routed.filter((route) => !route.decision.holdout);
    expect(
      learned.filter((route) => route.connections[0]?.id === 'pc_c').length / learned.length,
    ).toBeGreaterThan(0.9);
  });

  it('holds nothing out with a share of 0, drawing exactly as a rule did before holdouts', () => {
    const none = decisions(routingWith({ holdout: { share: 0 } }), 500, 9);
    // The strategy alone, on the same generator: no draw is spent on a holdout.
    const random = seededRandom(9);
    const alone = Array.from({ length: 500 }, () =>
      chooseByStrategy({
        goal: 'conversion',
        candidates: connections,
        observed,
        isDown: () => false,
        amount: link.amount,
        method: undefined,
        random,
      }),
    );

    expect(none.some((route) => route.decision.holdout)).toBe(false);
    expect(none.map((route) => route.connections.map((c) => c.id))).toEqual(
      alone.map((choice) => choice.order.map((c) => c.id)),
    );
  });

  it('keeps health first in the holdout too, and leaves the checkout to learning when no baseline connection is usable', () => {
    const downFirst = decisions(
      routingWith({ holdout: { share: 0.5, baseline: ['pc_a', 'pc_b'] } }),
      400,
      3,
      (id) => id === 'pc_a',
    ).filter((route) => route.decision.holdout);
    expect(downFirst.length).toBeGreaterThan(100);
    expect(downFirst.every((route) => route.connections.map((c) => c.id).join() === 'pc_b,pc_a')).toBe(true);

    const random = seededRandom(4);
    const unusable = Array.from({ length: 400 }, () =>
      routeDecision(
        link,
        routingWith({ holdout: { share: 0.5, baseline: ['pc_a'] } }),
        [connection('pc_a', { enabled: false }), connection('pc_b'), connection('pc_c')],
        random,
        { observed },
      ),
    );
    expect(unusable.some((route) => route.decision.holdout)).toBe(false);
    expect(unusable.every((route) => route.connections.length === 2)).toBe(true);
  });

  it('is checked against the connections of the mode: a share outside 0 to 0.5 and unknown baseline ids', () => {
    const problems = routingProblems(
      routingWith({ holdout: { share: 0.6, baseline: ['pc_a', 'pc_gone', 'pc_a'] } }),
      connections,
    );

    expect(problems).toEqual([
      { pointer: '/rules/0/then/holdout/share', detail: 'Must be between 0 and 0.5.' },
      { pointer: '/rules/0/then/holdout/baseline/1', detail: 'No connection pc_gone in this mode.' },
      { pointer: '/rules/0/then/holdout/baseline/2', detail: 'pc_a is named twice.' },
    ]);
    expect(
      routingProblems(routingWith({ holdout: { share: 0.5, baseline: ['pc_c'] } }), connections),
    ).toEqual([]);
    expect(
      routingProblems(routingWith({ holdout: { share: Number.NaN } }), connections).map((p) => p.pointer),
    ).toEqual(['/rules/0/then/holdout/share']);
  });

  it('is kept on the stored decision in one byte, and absent on older ones', () => {
    const held = decisions(routingWith({ holdout: { share: 0.5 } }), 50).find(
      (route) => route.decision.holdout,
    );
    const decision = { ...held?.decision, chosen: 'pc_a' } as NonNullable<typeof held>['decision'];

    expect(toStoredRouting(decision).h).toBe(1);
    expect(fromStoredRouting(toStoredRouting(decision), 'pc_a')).toEqual(decision);
    const { h: _, ...older } = toStoredRouting(decision);
    expect(fromStoredRouting(older, 'pc_a').holdout).toBe(false);
  });
});
