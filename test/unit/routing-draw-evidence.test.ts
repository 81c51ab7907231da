import { describe, expect, it } from 'vitest';
import {
  bucketStart,
  NO_OUTCOMES,
  type OutcomeBucket,
  type OutcomeCounts,
  type OutcomeWindows,
  windowsOf,
} from '../../functions/domain/outcomes.ts';
import { chooseByStrategy, drawEvidence, evidence } from '../../functions/domain/strategies.ts';
import { seededRandom } from '../../lib/local/seeded-random.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

/**
 * What a Thompson draw reads of a candidate (`drawEvidence`, docs/orchestration.md#strategies): the hour before the
 * last one in full when the last hour agrees with it, so that a connection another one took the traffic from does
 * not draw as widely as one seen 20 times an hour later.
 */
const counts = (sessions: number, share: number): OutcomeCounts => ({
  ...NO_OUTCOMES,
  opened: sessions,
  paid: sessions * share,
  failed: sessions * (1 - share),
});
const sum = (...parts: OutcomeCounts[]): OutcomeCounts =>
  parts.reduce((total, part) => ({
    opened: total.opened + part.opened,
    paid: total.paid + part.paid,
    failed: total.failed + part.failed,
    left: total.left + part.left,
    outage: total.outage + part.outage,
  }));

/** Windows of `hour`, then `hourBefore` (the rest of the last two hours), then `older` (the rest of the day). */
function windows(hour: OutcomeCounts, hourBefore: OutcomeCounts, older: OutcomeCounts): OutcomeWindows {
  return { last_hour: hour, last_2h: sum(hour, hourBefore), last_24h: sum(hour, hourBefore, older) };
}

/** B, the best: full hours at 0.86. */
const best = windows(counts(1_500, 0.86), counts(1_500, 0.86), counts(7_000, 0.86));
/** A, at 0.80: 400 sessions in the hour before, 10 since (B took the traffic), 2,000 earlier in the day. */
const thinned = windows(counts(10, 0.8), counts(400, 0.8), counts(2_000, 0.8));

describe('what a Thompson draw reads of a candidate', () => {
  it('reads the hour before the last in full when the last hour agrees with it, the rest of the day as 20 sessions', () => {
    const drawn = drawEvidence(thinned);

    expect(drawn.paid + drawn.failed).toBeCloseTo(10 + 400 + 20, 6);
    expect(drawn.paid / (drawn.paid + drawn.failed)).toBeCloseTo(0.8, 6);
    // What exploration and elimination read: the last hour and 20 sessions' worth of the rest of the day.
    const judged = evidence(thinned);
    expect(judged.paid + judged.failed).toBeCloseTo(30, 6);
  });

  it('reads as evidence when the last hour shows a change, or the hour before was seen little', () => {
    const dropped = windows(counts(60, 0.55), counts(400, 0.85), counts(2_000, 0.85));

    expect(drawEvidence(dropped)).toEqual(evidence(dropped));
    // An hour before of fewer than 100 sessions (a connection seen through exploration): evidence too.
    const seenLittle = windows(counts(10, 0.88), counts(90, 0.8), counts(2_000, 0.7));
    expect(drawEvidence(seenLittle)).toEqual(evidence(seenLittle));
    // Without the last two hours (windows read before they existed): evidence too.
    const { last_2h: _, ...withoutTwoHours } = thinned;
    expect(drawEvidence(withoutTwoHours)).toEqual(evidence(withoutTwoHours));
  });

  it('reads the outcomes as learning weighs them', () => {
    const flooded: OutcomeWindows = {
      ...windows(counts(10, 0.8), counts(400, 0.1), NO_OUTCOMES),
      weighted: windows(counts(10, 0.8), counts(400, 0.8), NO_OUTCOMES),
    };

    const drawn = drawEvidence(flooded);
    expect(drawn.paid + drawn.failed).toBeCloseTo(410, 6);
    expect(drawn.paid / (drawn.paid + drawn.failed)).toBeCloseTo(0.8, 6);
  });

  it('lets a connection whose last hour thinned win few draws against the best, and still explores it', () => {
    const random = seededRandom(11);
    const candidates = ['pc_A', 'pc_B'].map((id) => sandboxConnection(id));
    const observed: Record<string, OutcomeWindows> = { pc_A: thinned, pc_B: best };
    let drawnFirst = 0;
    let exploredFirst = 0;
    for (let i = 0; i < 2_000; i++) {
      const choice = chooseByStrategy({
        goal: 'conversion',
        candidates,
        observed: (id) => observed[id],
        isDown: () => false,
        amount: { value: '50.00', currency: 'EUR' },
        method: undefined,
        random,
      });
      if (choice.order[0]?.id !== 'pc_A') continue;
      if (choice.exploration) exploredFirst++;
      else drawnFirst++;
    }

    // Read as 30 sessions, A's Beta wins about one draw in eight; read with its hour before, about one in a thousand.
    expect(drawnFirst).toBeLessThan(40);
    expect(exploredFirst).toBeGreaterThan(0);
  });
});

describe('the windows of the counters', () => {
  it('sums the hour buckets of the last two hours, not older ones nor the five-minute buckets', () => {
    const now = new Date('2026-11-30T10:20:00.000Z');
    const bucket = (
      granularity: OutcomeBucket['granularity'],
      hoursAgo: number,
      paid: number,
    ): OutcomeBucket => ({
      connection_id: 'pc_A',
      segment: 'EUR|any|10-100',
      granularity,
      start: bucketStart(new Date(now.getTime() - hoursAgo * 3_600_000), granularity),
      counts: { ...NO_OUTCOMES, paid },
      weighted: { ...NO_OUTCOMES, paid: paid / 2 },
    });
    const buckets = [
      bucket('hours', 0, 1),
      bucket('hours', 1, 10),
      bucket('hours', 2, 100),
      bucket('hours', 3, 1_000),
      bucket('minutes', 0, 5),
    ];

    const windowsOfA = windowsOf(buckets, now).get('pc_A')?.get('EUR|any|10-100');

    // 10:00, 09:00 and 08:00 (the bucket holding two hours ago); 07:00 only in the day.
    expect(windowsOfA?.last_2h?.paid).toBe(111);
    expect(windowsOfA?.weighted?.last_2h?.paid).toBe(55.5);
    expect(windowsOfA?.last_24h.paid).toBe(1_111);
    expect(windowsOfA?.last_hour.paid).toBe(5);
  });
});
