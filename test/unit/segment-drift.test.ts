import { describe, expect, it } from 'vitest';
import { NO_OUTCOMES, type OutcomeWindows, segmentKey, segmentOf } from '../../functions/domain/outcomes.ts';
import { learningSignals, type Routing, routeDecision } from '../../functions/domain/routing.ts';
import { shiftedShare, unseenChange } from '../../functions/domain/segment-drift.ts';
import { seededRandom } from '../../lib/local/seeded-random.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

/**
 * A connection's change seen first in its other segments (functions/domain/segment-drift.ts,
 * docs/orchestration.md#strategies): a bank transfer's outcome is known an hour after its session opened, a card's
 * within minutes, so a connection's cards show its drop an hour before its bank transfers do.
 */

/** A segment's windows: `hour` sessions of the last hour paid at `hourShare`, and as many of the rest of the day. */
function windows(hour: number, hourShare: number, older: number, olderShare: number): OutcomeWindows {
  const counts = (sessions: number, share: number) => ({
    ...NO_OUTCOMES,
    opened: sessions,
    paid: sessions * share,
    failed: sessions * (1 - share),
  });
  const lastHour = counts(hour, hourShare);
  const rest = counts(older, olderShare);
  return {
    last_hour: lastHour,
    last_24h: {
      ...NO_OUTCOMES,
      opened: lastHour.opened + rest.opened,
      paid: lastHour.paid + rest.paid,
      failed: lastHour.failed + rest.failed,
    },
  };
}

/** A connection paid 85% of the time until now, with no change in the last hour. */
const steady = windows(600, 0.85, 6_000, 0.85);
/** The same connection's cards: their last hour shows it falling to 55%. */
const cardsDropped = windows(300, 0.55, 9_000, 0.85);

describe('a change seen first in other segments', () => {
  it("moves a segment's share by the change its other segments show and its own last hour does not yet", () => {
    const change = unseenChange(steady, [cardsDropped]);

    // 30 points seen by the cards, less the margin two standard errors of their hour leave.
    expect(change).toBeLessThan(-0.2);
    expect(change).toBeGreaterThan(-0.3);
    expect(shiftedShare(steady.last_hour, change).paid / 600).toBeCloseTo(0.85 + change, 10);
  });

  it('adds nothing once the segment shows the change itself, and never undoes a change of its own', () => {
    const caughtUp = windows(300, 0.55, 6_000, 0.85);
    expect(unseenChange(caughtUp, [cardsDropped])).toBe(0);
    // Its own drop, the other segments steady: learned from its own outcomes, left as it is.
    expect(unseenChange(caughtUp, [windows(600, 0.85, 9_000, 0.85)])).toBe(0);
    // Half of the drop seen: the other half added.
    expect(unseenChange(windows(600, 0.7, 6_000, 0.85), [windows(3_000, 0.55, 9_000, 0.85)])).toBeCloseTo(
      -0.15,
      1,
    );
  });

  it('reads no change into noise of a thin window, nor into traffic moving between segments of different shares', () => {
    // 3 of 10 sessions paid in the hour against 85% over the day: within what ten sessions can show.
    expect(unseenChange(steady, [windows(10, 0.6, 9_000, 0.85)])).toBe(0);
    // Two other segments, each as it always was (90% and 60%); the hour saw more of the second than the day did.
    const cards = windows(100, 0.9, 9_000, 0.9);
    const ideal = windows(900, 0.6, 1_000, 0.6);
    expect(unseenChange(steady, [cards, ideal])).toBe(0);
    expect(unseenChange(steady, [])).toBe(0);
    expect(unseenChange(undefined, [cardsDropped])).toBeLessThan(-0.2);
  });

  it('routes a bank transfer away from a connection whose card payments dropped before the transfers show it', () => {
    const amount = { value: '50.00', currency: 'EUR' };
    const segment = (method: 'card' | 'sepa_debit') => segmentKey(segmentOf(amount, [method]));
    const dropped = sandboxConnection('pc_dropped', { account: 'acme' });
    const steadyB = sandboxConnection('pc_steady', { account: 'acme' });
    const routing: Routing = {
      rules: [
        {
          name: 'learn',
          when: {},
          // biome-ignore lint/suspicious/noThenProperty: a routing rule's target is its `then` (docs/orchestration.md#routing)
          then: { optimize: 'conversion', connections: [dropped.id, steadyB.id], holdout: { share: 0 } },
        },
      ],
      default: [dropped.id, steadyB.id],
    };
    const observed = new Map([
      [
        dropped.id,
        new Map([
          [segment('sepa_debit'), steady],
          [segment('card'), cardsDropped],
        ]),
      ],
      [steadyB.id, new Map([[segment('sepa_debit'), windows(600, 0.78, 6_000, 0.78)]])],
    ]);
    const link = {
      account: 'acme',
      mode: 'test' as const,
      metadata: null,
      amount,
      payment_methods: ['sepa_debit' as const],
    };

    const { decision } = routeDecision(link, routing, [dropped, steadyB], seededRandom(3), {
      ...learningSignals(observed, segment('sepa_debit')),
    });

    const share = (id: string) => decision.candidates.find((c) => c.connection === id)?.paid_share ?? 1;
    expect(share(dropped.id)).toBeLessThan(0.65);
    expect(share(steadyB.id)).toBeCloseTo(0.78, 2);
  });
});
