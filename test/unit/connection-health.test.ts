import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  afterOutages,
  afterOutcome,
  afterSuccess,
  afterTrialOutcome,
  awaitsTrial,
  type ConnectionHealth,
  claimTrial,
  DOWN_FOR_MS,
  FAILURES_BEFORE_DOWN,
  healthStatus,
  INITIAL_HEALTH,
  isAvailable,
  isDownForOutages,
  NO_OUTAGE_RUN,
  OUTAGE_TRIAL_LEASE_MS,
  OUTAGE_TRIALS_TO_PASS,
  OUTAGES_BEFORE_DOWN,
} from '../../functions/domain/connection-health.ts';
import type { Outcome } from '../../functions/domain/outcomes.ts';
import { type Payment, settle, startedPayment } from '../../functions/domain/payment.ts';
import { stillPending } from '../../functions/domain/payment-checks.ts';

const now = new Date('2026-01-01T10:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('connection health', () => {
  it(`is degraded below ${FAILURES_BEFORE_DOWN} failures in a row, down for ${DOWN_FOR_MS / 1000} s at the fifth`, () => {
    let health = INITIAL_HEALTH;
    for (let failure = 1; failure < FAILURES_BEFORE_DOWN; failure++) {
      health = afterFailure(health, now);
      expect(healthStatus(health, now)).toBe('degraded');
      expect(isAvailable(health, now)).toBe(true);
    }
    health = afterFailure(health, now);
    expect(healthStatus(health, now)).toBe('down');
    expect(isAvailable(health, later(DOWN_FOR_MS - 1))).toBe(false);
    expect(awaitsTrial(health, later(DOWN_FOR_MS - 1))).toBe(false);
    expect(awaitsTrial(health, later(DOWN_FOR_MS))).toBe(true);
  });

  it('gives one trial after the down time: claimed, it reads down to others; its failure means down again', () => {
    let health = INITIAL_HEALTH;
    for (let failure = 0; failure < FAILURES_BEFORE_DOWN; failure++) health = afterFailure(health, now);
    const trialAt = later(DOWN_FOR_MS + 1);
    const claimed = claimTrial(health, trialAt, 7_000);
    expect(claimed && healthStatus(claimed, trialAt)).toBe('down');
    expect(claimed && claimTrial(claimed, trialAt, 7_000)).toBeUndefined();
    const failedTrial = afterFailure(claimed ?? health, trialAt);
    expect(Date.parse(failedTrial.down_until as string)).toBe(trialAt.getTime() + DOWN_FOR_MS);
    expect(afterSuccess(failedTrial)).toMatchObject({ consecutive_failures: 0, down_until: null });
    expect(afterSuccess(INITIAL_HEALTH)).toBeUndefined();
  });
});

describe('outages after the opening, in connection health', () => {
  const take = (outcomes: readonly Outcome[], at = now) =>
    outcomes.reduce(
      (state, outcome) => {
        const next = afterOutcome(state.run, outcome, at);
        return { run: next.run, downs: state.downs + (next.take_down ? 1 : 0) };
      },
      { run: NO_OUTAGE_RUN, downs: 0 },
    );

  it(`take a connection down at the ${OUTAGES_BEFORE_DOWN}th in a row one container sees; a paid or declined session starts again, one left does not`, () => {
    const outages = Array.from({ length: OUTAGES_BEFORE_DOWN - 1 }, (): Outcome => 'outage');

    expect(take(outages).downs).toBe(0);
    expect(take([...outages, 'outage']).downs).toBe(1);
    expect(take([...outages, 'paid', 'outage']).downs).toBe(0);
    expect(take([...outages, 'failed', 'outage']).downs).toBe(0);
    expect(take([...outages, 'left', 'opened', 'outage']).downs).toBe(1);
  });

  it('ask for no further write while the connection is down as the container left it, and count again after', () => {
    const down = take(Array.from({ length: OUTAGES_BEFORE_DOWN }, (): Outcome => 'outage'));
    const during = Array.from({ length: 3 * OUTAGES_BEFORE_DOWN }, (): Outcome => 'outage').reduce(
      (state, outcome) => {
        const next = afterOutcome(state.run, outcome, later(DOWN_FOR_MS - 1));
        return { run: next.run, downs: state.downs + (next.take_down ? 1 : 0) };
      },
      down,
    );
    expect(during.downs).toBe(1);

    let run = during.run;
    const downs: boolean[] = [];
    for (let outage = 0; outage < OUTAGES_BEFORE_DOWN; outage++) {
      const next = afterOutcome(run, 'outage', later(DOWN_FOR_MS));
      run = next.run;
      downs.push(next.take_down);
    }
    expect(downs.filter(Boolean)).toHaveLength(1);
  });

  it(`are down for ${DOWN_FOR_MS / 1000} s, then one trial session at a time, whose opening does not bring the connection back`, () => {
    const down = afterOutages(INITIAL_HEALTH, now) as ConnectionHealth;

    expect(healthStatus(down, later(DOWN_FOR_MS - 1))).toBe('down');
    expect(afterOutages(down, later(1))).toBeUndefined();
    expect(awaitsTrial(down, later(DOWN_FOR_MS))).toBe(true);
    const trial = claimTrial(down, later(DOWN_FOR_MS), 7_000) as ConnectionHealth;
    // The trial's session has its outcome's time, not one call's, before anybody else tries.
    expect(healthStatus(trial, later(DOWN_FOR_MS + OUTAGE_TRIAL_LEASE_MS - 1))).toBe('down');
    expect(awaitsTrial(trial, later(DOWN_FOR_MS + OUTAGE_TRIAL_LEASE_MS))).toBe(true);
    expect(afterSuccess(trial)).toBeUndefined();
  });

  it(`bring the connection back once ${OUTAGE_TRIALS_TO_PASS} trial sessions in a row are paid or declined, the next tried at once, and down again when one fails as an outage`, () => {
    const firstTrial = claimTrial(
      afterOutages(INITIAL_HEALTH, now) as ConnectionHealth,
      later(DOWN_FOR_MS),
      7_000,
    ) as ConnectionHealth;
    const outcomeAt = later(DOWN_FOR_MS + 180_000);

    for (const served of ['paid', 'failed'] as const) {
      // A PSP failing in a burst still pays some sessions: one served trial is not enough.
      const passed = afterTrialOutcome(firstTrial, served, outcomeAt) as ConnectionHealth;
      expect(passed).toMatchObject({ down_until: null });
      expect(isDownForOutages(passed)).toBe(true);
      expect(isAvailable(passed, outcomeAt)).toBe(false);
      const secondTrial = claimTrial(passed, outcomeAt, 7_000) as ConnectionHealth;
      expect(healthStatus(secondTrial, outcomeAt)).toBe('down');

      const back = afterTrialOutcome(secondTrial, served, later(DOWN_FOR_MS + 360_000)) as ConnectionHealth;
      expect(back).toMatchObject({ consecutive_failures: 0, down_until: null, trials_to_pass: 0 });
      expect(isAvailable(back, outcomeAt)).toBe(true);
      expect(afterTrialOutcome(back, 'outage', outcomeAt)).toBeUndefined();

      // An outage after a served trial starts the trials over.
      const again = afterTrialOutcome(secondTrial, 'outage', outcomeAt) as ConnectionHealth;
      const thirdTrial = claimTrial(again, later(DOWN_FOR_MS * 2 + 180_000), 7_000) as ConnectionHealth;
      expect(isDownForOutages(afterTrialOutcome(thirdTrial, served, outcomeAt) as ConnectionHealth)).toBe(
        true,
      );
    }
    const again = afterTrialOutcome(firstTrial, 'outage', outcomeAt) as ConnectionHealth;
    expect(Date.parse(again.down_until as string)).toBe(outcomeAt.getTime() + DOWN_FOR_MS);
    expect(isDownForOutages(again)).toBe(true);
    expect(afterTrialOutcome(firstTrial, 'left', outcomeAt)).toBeUndefined();
  });
});

describe('payment transitions', () => {
  const pending = (): Payment =>
    startedPayment(
      {
        id: 'pay_1',
        link: { id: 'pl_1', account: 'acme', mode: 'test' },
        connection: { id: 'pc_1', provider: 'sandbox' },
        amount: { value: '10.00', currency: 'EUR' },
      },
      { id: 's_1', expires_at: later(24 * 3_600_000).toISOString() },
      now,
    );

  it('settle once: a succeeded payment never changes, a failed one may still succeed (money moved)', () => {
    const failed = settle(
      pending(),
      { state: 'failed', failure: { code: 'declined', message: 'no' }, reference: null },
      now,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      failure: { code: 'declined' },
      next_check_at: null,
      version: 2,
    });
    expect(
      failed && settle(failed, { state: 'expired', failure: null, reference: null }, now),
    ).toBeUndefined();
    const succeeded = failed && settle(failed, { state: 'succeeded', failure: null, reference: 'ref' }, now);
    expect(succeeded).toMatchObject({ status: 'succeeded', failure: null, provider_reference: 'ref' });
    expect(
      succeeded && settle(succeeded, { state: 'failed', failure: null, reference: null }, now),
    ).toBeUndefined();
    expect(settle(pending(), { state: 'pending', failure: null, reference: null }, now)).toBeUndefined();
  });

  it('waits twice as long between checks while pending, and settles expired after the session ended', () => {
    const first = stillPending(pending(), later(600_000));
    const second = stillPending(first, later(600_000 + 1_200_000));
    const firstWait = Date.parse(first.next_check_at as string) - later(600_000).getTime();
    const secondWait = Date.parse(second.next_check_at as string) - later(1_800_000).getTime();
    expect(secondWait).toBe(2 * firstWait);
    expect(stillPending(second, later(24 * 3_600_000 + 1))).toMatchObject({
      status: 'expired',
      next_check_at: null,
    });
  });
});
