import { describe, expect, it } from 'vitest';
import {
  type ConnectionHealth,
  claimTrial,
  DOWN_FOR_MS,
  healthStatus,
  INITIAL_HEALTH,
  OUTAGE_TRIALS_TO_PASS,
  OUTAGES_BEFORE_DOWN,
} from '../../functions/domain/connection-health.ts';
import type { Outcome } from '../../functions/domain/outcomes.ts';
import type { PspConnectionRepository } from '../../functions/ports/psp-connections.ts';
import { OutageHealth } from '../../functions/use-cases/outage-health.ts';

/** One stored health, written as the repository writes it (a change applied to what is stored), writes counted. */
function storedHealth() {
  let health: ConnectionHealth = INITIAL_HEALTH;
  const store = {
    writes: 0,
    reads: 0,
    get health() {
      return health;
    },
    updateHealth: (async (_connection, change) => {
      store.reads++;
      const next = change(health);
      if (!next) return undefined;
      store.writes++;
      health = next;
      return next;
    }) satisfies PspConnectionRepository['updateHealth'],
  };
  return store;
}

const payment = { connection_id: 'pc_b', account: 'acct_1', mode: 'test' as const };

describe('outages feeding connection health, in one container', () => {
  it(`write the connection down once at the ${OUTAGES_BEFORE_DOWN}th outage in a row, and not again while it is down`, async () => {
    let clock = Date.parse('2026-11-30T12:00:00.000Z');
    const store = storedHealth();
    const outages = new OutageHealth(store, () => new Date(clock));

    for (let outage = 0; outage < OUTAGES_BEFORE_DOWN - 1; outage++) await outages.observe(payment, 'outage');
    expect(store.reads).toBe(0);
    await outages.observe(payment, 'outage');
    expect(store.writes).toBe(1);
    expect(healthStatus(store.health, new Date(clock))).toBe('down');

    // A burst goes on: the sessions opened before it was taken down keep failing, and cost no write.
    for (let outage = 0; outage < 50; outage++) {
      clock += 1_000;
      await outages.observe(payment, 'outage');
    }
    expect(store.reads).toBe(1);
    expect(store.writes).toBe(1);
  });

  it('write nothing while the PSP serves sessions between outages (paid or declined)', async () => {
    const store = storedHealth();
    const outages = new OutageHealth(store, () => new Date('2026-11-30T12:00:00.000Z'));
    const pattern: Outcome[] = ['outage', 'outage', 'outage', 'outage', 'failed', 'outage', 'left', 'paid'];

    for (let round = 0; round < 10; round++) {
      for (const outcome of pattern) await outages.observe(payment, outcome);
    }

    expect(store.reads).toBe(0);
    expect(store.health).toEqual(INITIAL_HEALTH);
  });

  it("write the trial session's outcome as it comes, and nothing for its opening or for a buyer who left", async () => {
    const at = new Date('2026-11-30T12:00:00.000Z');
    const store = storedHealth();
    const outages = new OutageHealth(store, () => at);
    for (let outage = 0; outage < OUTAGES_BEFORE_DOWN; outage++) await outages.observe(payment, 'outage');
    await store.updateHealth({ ...payment, id: payment.connection_id }, (health) =>
      claimTrial({ ...health, down_until: null }, at, 7_000),
    );
    const trial = { ...payment, health_trial: true as const };
    const writes = store.writes;

    await outages.observe(trial, 'opened');
    await outages.observe(trial, 'left');
    expect(store.writes).toBe(writes);
    for (let served = 0; served < OUTAGE_TRIALS_TO_PASS; served++) await outages.observe(trial, 'paid');

    expect(store.writes).toBe(writes + OUTAGE_TRIALS_TO_PASS);
    expect(store.health).toMatchObject({
      consecutive_failures: 0,
      down_until: null,
      trials_to_pass: 0,
    });
  });

  it('read and write nothing more when another container took the connection down first', async () => {
    const at = new Date('2026-11-30T12:00:00.000Z');
    const store = storedHealth();
    const first = new OutageHealth(store, () => at);
    const second = new OutageHealth(store, () => new Date(at.getTime() + DOWN_FOR_MS / 2));

    for (let outage = 0; outage < OUTAGES_BEFORE_DOWN; outage++) {
      await first.observe(payment, 'outage');
      await second.observe(payment, 'outage');
    }

    expect(store.reads).toBe(2);
    expect(store.writes).toBe(1);
  });
});
