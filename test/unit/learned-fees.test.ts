import { describe, expect, it } from 'vitest';
import {
  outcomeBucketAdditions,
  outcomeBucketFromItem,
} from '../../functions/adapters/dynamodb/outcome-counter-mapper.ts';
import {
  fromStoredRouting,
  storedRouting,
  toStoredRouting,
} from '../../functions/adapters/dynamodb/routing-item.ts';
import { feeEstimate, MIN_REPORTED_FEES, reportedFeeOf } from '../../functions/domain/learned-fees.ts';
import {
  bucketStart,
  HOUR_MS,
  NO_OUTCOMES,
  type OutcomeBucket,
  segmentKey,
  segmentOf,
  windowsOf,
} from '../../functions/domain/outcomes.ts';
import { type RoutedLink, type Routing, routeDecision } from '../../functions/domain/routing.ts';
import { OutcomeRecorder } from '../../functions/use-cases/outcome-recording.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

const now = new Date('2026-11-30T12:00:00.000Z');
const eur = (value: string) => ({ value, currency: 'EUR' });

const connection = (id: string, percent: number) => sandboxConnection(id, { fees: [{ percent, fixed: 0 }] });

/** An hour bucket `hoursAgo` before `now` in which the PSP reported `count` fees of `percent` on 40.00 EUR each. */
function reported(
  connectionId: string,
  segment: string,
  count: number,
  percent: number,
  hoursAgo = 1,
): OutcomeBucket {
  return {
    connection_id: connectionId,
    segment,
    granularity: 'hours',
    start: bucketStart(new Date(now.getTime() - hoursAgo * HOUR_MS), 'hours'),
    counts: { ...NO_OUTCOMES, opened: count, paid: count },
    fees: { count, amount_minor: count * 4000, fee_minor: count * 40 * percent },
  };
}

const routing: Routing = {
  rules: [
    // biome-ignore lint/suspicious/noThenProperty: a routing rule's target is its `then` (docs/orchestration.md#routing)
    { name: 'cheapest', when: {}, then: { optimize: 'cost', connections: ['pc_a', 'pc_b'] } },
  ],
  default: ['pc_a'],
};
// Configured, A is the cheaper (1% against 2%).
const connections = [connection('pc_a', 1), connection('pc_b', 2)];

/** The cost decision for a link of `value` EUR, given these buckets; never explored nor held out. */
function decide(value: string, buckets: readonly OutcomeBucket[]) {
  const windows = windowsOf(buckets, now);
  const link: RoutedLink = { account: 'acme', mode: 'test', amount: eur(value), metadata: null };
  const segment = segmentKey(segmentOf(link.amount, undefined));
  return routeDecision(link, routing, connections, () => 0.99, {
    observed: (id) => windows.get(id)?.get(segment),
  });
}

describe('fees learned from what the PSPs reported', () => {
  it('uses the configured fee below the minimum count, and the reported share of the amount from it on', () => {
    const fees = (count: number) => ({ count, amount_minor: count * 1000, fee_minor: count * 30 });

    expect(feeEstimate(0.1, fees(MIN_REPORTED_FEES - 1), eur('50.00'))).toEqual({
      expected_fee: 0.1,
      fee_basis: 'configured',
    });
    expect(feeEstimate(0.1, fees(MIN_REPORTED_FEES), eur('50.00'))).toEqual({
      expected_fee: 1.5,
      fee_basis: 'reported',
    });
    expect(feeEstimate(null, fees(MIN_REPORTED_FEES), eur('50.00')).fee_basis).toBe('reported');
    expect(feeEstimate(null, undefined, eur('50.00'))).toEqual({ expected_fee: null, fee_basis: null });
  });

  it('learns only fees the PSP reported in the payment’s own currency', () => {
    const amount = eur('40.00');
    const fee = (source: 'reported' | 'configured', currency = 'EUR') => ({
      amount: { value: '1.20', currency },
      source,
    });

    expect(reportedFeeOf({ amount, fee: fee('reported') })).toEqual({
      count: 1,
      amount_minor: 4000,
      fee_minor: 120,
    });
    expect(reportedFeeOf({ amount, fee: fee('configured') })).toBeUndefined();
    expect(reportedFeeOf({ amount, fee: fee('reported', 'USD') })).toBeUndefined();
    expect(reportedFeeOf({ amount })).toBeUndefined();
  });

  it('moves cost routing to the connection whose reported fees are lower, per segment, and says so', () => {
    // Reported, B is the cheaper in 10-100 (1.5% against 3%); in 100-1000 A has one report too few.
    const buckets = [
      reported('pc_a', 'EUR|any|10-100', MIN_REPORTED_FEES, 3),
      reported('pc_b', 'EUR|any|10-100', MIN_REPORTED_FEES, 1.5),
      reported('pc_a', 'EUR|any|100-1000', MIN_REPORTED_FEES - 1, 3),
    ];

    const small = decide('50.00', buckets);
    const large = decide('500.00', buckets);

    expect(small.connections.map((c) => c.id)).toEqual(['pc_b', 'pc_a']);
    expect(small.decision.candidates).toMatchObject([
      { connection: 'pc_a', expected_fee: 1.5, fee_basis: 'reported' },
      { connection: 'pc_b', expected_fee: 0.75, fee_basis: 'reported' },
    ]);
    expect(large.connections.map((c) => c.id)).toEqual(['pc_a', 'pc_b']);
    expect(large.decision.candidates).toMatchObject([
      { connection: 'pc_a', expected_fee: 5, fee_basis: 'configured' },
      { connection: 'pc_b', expected_fee: 10, fee_basis: 'configured' },
    ]);
  });

  it('stores which fee a decision used in one byte more, and reads older decisions as configured', () => {
    const decision = decide('50.00', [reported('pc_a', 'EUR|any|10-100', MIN_REPORTED_FEES, 3)]).decision;
    const stored = toStoredRouting({ ...decision, chosen: 'pc_a' });

    expect(stored.c).toEqual([
      ['pc_a', 1, 20, 1.5, 0, 1],
      ['pc_b', null, 0, 1, 0],
    ]);
    expect(fromStoredRouting(stored, 'pc_a').candidates).toEqual(decision.candidates);
    expect(() => storedRouting({ ...stored, c: [['pc_a', 1, 20, 1.5, 0, 2]] })).toThrow(/expected 1/);
  });

  it('forgets reports older than the last day', () => {
    const buckets = [
      reported('pc_a', 'EUR|any|10-100', MIN_REPORTED_FEES, 3, 26),
      reported('pc_b', 'EUR|any|10-100', MIN_REPORTED_FEES, 1.5, 26),
    ];

    const decided = decide('50.00', buckets);

    expect(decided.connections.map((c) => c.id)).toEqual(['pc_a', 'pc_b']);
    expect(decided.decision.candidates.map((c) => c.fee_basis)).toEqual(['configured', 'configured']);
  });

  it('keeps a reported fee in the paid outcome’s hour bucket item, no item of its own', async () => {
    const added: OutcomeBucket[] = [];
    const recorder = new OutcomeRecorder({
      store: { add: async (buckets) => void added.push(...buckets), read: async () => [] },
      shard: 0,
      flushEveryMs: 0,
      now: () => now,
    });

    recorder.record('pc_a', 'EUR|any|10-100', 'paid', now, 1, {
      count: 1,
      amount_minor: 4000,
      fee_minor: 120,
    });
    await recorder.flush();

    expect(added).toHaveLength(2);
    const hour = added.find((bucket) => bucket.granularity === 'hours') as OutcomeBucket;
    expect(added.find((bucket) => bucket.granularity === 'minutes')?.fees).toBeUndefined();
    const { values } = outcomeBucketAdditions(hour);
    expect(values).toMatchObject({ ':f_count': 1, ':f_amount': 4000, ':f_fee': 120, ':paid': 1 });
    const item = {
      sk: `hours#${new Date(hour.start).toISOString()}#EUR|any|10-100`,
      f_count: 1,
      f_amount: 4000,
      f_fee: 120,
    };
    expect(outcomeBucketFromItem('pc_a', item).fees).toEqual({
      count: 1,
      amount_minor: 4000,
      fee_minor: 120,
    });
    expect(outcomeBucketFromItem('pc_a', { sk: item.sk, paid: 3 }).fees).toBeUndefined();
  });
});
