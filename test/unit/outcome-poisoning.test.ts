import { describe, expect, it, vi } from 'vitest';
import type { PspConnection } from '../../functions/domain/connection.ts';
import {
  addCounts,
  NO_OUTCOMES,
  type OutcomeBucket,
  segmentKey,
  segmentOf,
} from '../../functions/domain/outcomes.ts';
import { newPaymentId, type Payment, settle, startedPayment } from '../../functions/domain/payment.ts';
import { type Routing, routeDecision } from '../../functions/domain/routing.ts';
import type { OutcomeCounterStore } from '../../functions/ports/outcome-counters.ts';
import { seededRandom } from '../../lib/local/seeded-random.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';
import { memoryPayments } from '../support/memory-payments.ts';

vi.mock('../../functions/metrics.ts', () => ({ putMetrics: vi.fn() }));
// The unit files share their worker's modules (vitest.config.ts): an earlier file may have loaded the recorder with
// the real metrics, so it is loaded afresh here, with the mock.
vi.resetModules();
const { putMetrics } = await import('../../functions/metrics.ts');
const { countingPayments, ObservedOutcomes, OutcomeRecorder } = await import(
  '../../functions/use-cases/outcome-recording.ts'
);

/**
 * The attack of issue 50 (docs/orchestration.md#outcomes-nobody-can-poison): from 5 addresses, a client declines
 * every session a merchant's public (reusable) link routes to connection A and leaves B's open, to steer the
 * merchant's buyers to B. Played through the service's own outcome counting (`countingPayments`, the recorder and
 * the windows learning reads) and routing, in simulated time, against the same buyers without the attack.
 */
const ACCOUNT = 'acme';
const connection = (id: string) =>
  sandboxConnection(id, { account: ACCOUNT, mode: 'live', created_at: '2026-11-01T00:00:00.000Z' });
const A = connection('pc_A');
const B = connection('pc_B');
const TRUE_SHARE: Record<string, number> = { pc_A: 0.85, pc_B: 0.75 };
const then = { optimize: 'conversion' as const, connections: [A.id, B.id] };
const routing: Routing = { rules: [{ name: 'learn', when: {}, then }], default: [A.id, B.id] };
const AMOUNT = { value: '40.00', currency: 'EUR' };
const SEGMENT = segmentKey(segmentOf(AMOUNT, undefined));
const START = Date.parse('2026-11-30T08:00:00.000Z');
const MINUTE = 60_000;

/** Outcome counters in memory, as the table sums them (every shard together). */
function memoryCounters(): OutcomeCounterStore {
  const items = new Map<string, OutcomeBucket>();
  return {
    async add(buckets) {
      for (const bucket of buckets) {
        const key = `${bucket.connection_id}#${bucket.granularity}#${bucket.start}#${bucket.segment}`;
        const known = items.get(key);
        items.set(key, {
          ...bucket,
          counts: addCounts(known?.counts ?? NO_OUTCOMES, bucket.counts),
          weighted: addCounts(known?.weighted ?? NO_OUTCOMES, bucket.weighted ?? bucket.counts),
        });
      }
    },
    async read(connectionId) {
      return [...items.values()].filter((bucket) => bucket.connection_id === connectionId);
    },
  };
}

interface Event {
  at: number;
  run: () => Promise<void>;
}

/**
 * Four hours of a merchant's buyers, one every 20 s on a link of their own, each paying at its connection's true
 * share 3 minutes after opening; with `attacked`, from the start of the third hour, five clients each opening a
 * session on the public link every minute, declining it 20 s later when it is at A, leaving it open at B. Answers
 * the share of the buyers of the last hour and a half routed to B.
 */
async function play(attacked: boolean): Promise<{ toB: number; buyers: number }> {
  let now = START;
  const clock = () => new Date(now);
  const store = memoryCounters();
  const recorder = new OutcomeRecorder({ store, shard: 0, flushEveryMs: 0, now: clock });
  const payments = countingPayments(memoryPayments(), recorder);
  const observed = new ObservedOutcomes(store, { maxAgeMs: 0, now: clock });
  // The buyers' routing draws and whether each pays are the same in both runs; the attack draws its own.
  const buyersRandom = seededRandom(1);
  const buyersPay = seededRandom(2);
  const attackRandom = seededRandom(3);
  const events: Event[] = [];
  const tally = { toB: 0, buyers: 0 };

  async function open(linkId: string, client: string, random: () => number): Promise<Payment> {
    const windows = await observed.windows([A.id, B.id]);
    const link = { id: linkId, account: ACCOUNT, mode: 'live' as const, metadata: null, amount: AMOUNT };
    const { connections, decision } = routeDecision(link, routing, [A, B], random, {
      observed: (id) => windows.get(id)?.get(SEGMENT),
    });
    const chosen = connections[0] as PspConnection;
    const payment = startedPayment(
      {
        id: newPaymentId(clock()),
        link,
        connection: chosen,
        amount: AMOUNT,
        openedBy: client,
        routing: { ...decision, chosen: chosen.id },
      },
      { id: `cs_${linkId}_${now}`, expires_at: new Date(now + 24 * 60 * MINUTE).toISOString() },
      clock(),
    );
    await payments.save(payment);
    return payment;
  }
  const end = (payment: Payment, state: 'succeeded' | 'failed') => async () => {
    const ended = settle(payment, { state, failure: null, reference: null }, clock()) as Payment;
    await payments.save(ended, payment);
  };

  for (let at = START, n = 0; at < START + 240 * MINUTE; at += 20_000, n++) {
    const buyer = n;
    events.push({
      at,
      run: async () => {
        const payment = await open(`pl_buyer${buyer}`, `buyer${buyer}`, buyersRandom);
        if (at >= START + 150 * MINUTE) {
          tally.buyers++;
          if (payment.connection_id === B.id) tally.toB++;
        }
        const pays = buyersPay() < (TRUE_SHARE[payment.connection_id] as number);
        events.push({ at: at + 3 * MINUTE, run: end(payment, pays ? 'succeeded' : 'failed') });
      },
    });
  }
  if (attacked) {
    for (let at = START + 120 * MINUTE; at < START + 240 * MINUTE; at += MINUTE) {
      for (const address of [1, 2, 3, 4, 5]) {
        events.push({
          at: at + address * 1_000,
          run: async () => {
            const payment = await open('pl_public', `address${address}`, attackRandom);
            if (payment.connection_id === A.id)
              events.push({ at: now + 20_000, run: end(payment, 'failed') });
          },
        });
      }
    }
  }
  while (events.length > 0) {
    events.sort((a, b) => a.at - b.at);
    const event = events.shift() as Event;
    now = event.at;
    await event.run();
  }
  return tally;
}

describe('outcomes nobody can poison', () => {
  it('keeps the share of buyers a flood of declines from 5 clients sends to B within 5 points of no attack', {
    timeout: 120_000,
  }, async () => {
    vi.mocked(putMetrics).mockClear();
    const calm = await play(false);
    expect(vi.mocked(putMetrics)).not.toHaveBeenCalled();

    const attacked = await play(true);

    expect(calm.buyers).toBe(270);
    expect(attacked.buyers).toBe(calm.buyers);
    expect(Math.abs(attacked.toB / attacked.buyers - calm.toB / calm.buyers)).toBeLessThanOrEqual(0.05);
    // The flood is ignored and counted: every decline of each client but its first in an hour.
    const ignored = vi.mocked(putMetrics).mock.calls.filter(([values]) => 'OutcomesIgnored' in values);
    expect(ignored.length).toBeGreaterThan(300);
    expect(ignored.every(([, dimensions]) => dimensions?.connection === A.id)).toBe(true);
  });
});
