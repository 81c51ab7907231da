import { describe, expect, it } from 'vitest';
import {
  outcomeBucketAdditions,
  outcomeBucketFromItem,
} from '../../functions/adapters/dynamodb/outcome-counter-mapper.ts';
import { NO_OUTCOMES, type OutcomeBucket, outcomeOf, paidShare } from '../../functions/domain/outcomes.ts';
import { classified, type PaymentFailureCode } from '../../functions/domain/payment-failure.ts';
import { evidence } from '../../functions/domain/strategies.ts';

const pending = { status: 'pending' as const, session_id: 'cs_1' };
const failedWith = (code: PaymentFailureCode) => ({
  status: 'failed' as const,
  session_id: 'cs_1',
  failure: classified({ code, message: 'no' }),
});

describe('outages, counted apart from declines', () => {
  it('are the outcome of a session that failed with a failure of class outage; every other failure is a decline', () => {
    expect(outcomeOf(failedWith('psp_unavailable'), pending)).toBe('outage');
    expect(outcomeOf(failedWith('insufficient_funds'), pending)).toBe('failed');
    expect(outcomeOf(failedWith('expired_card'), pending)).toBe('failed');
    expect(outcomeOf({ status: 'failed', session_id: 'cs_1' }, pending)).toBe('failed');
  });

  it('stay out of the paid share learning reads, where a decline lowers it', () => {
    const withOutages = { ...NO_OUTCOMES, opened: 20, paid: 10, outage: 10 };
    const withDeclines = { ...NO_OUTCOMES, opened: 20, paid: 10, failed: 10 };
    const seen = (counts: typeof NO_OUTCOMES) => evidence({ last_hour: counts, last_24h: counts });

    expect(paidShare(seen(withOutages))).toBe(1);
    expect(seen(withOutages).outage).toBe(10);
    expect(paidShare(seen(withDeclines))).toBe(0.5);
  });

  it('are stored only in the items that saw one, and an item without them reads none', () => {
    const bucket = (outage: number): OutcomeBucket => ({
      connection_id: 'pc_a',
      segment: 'EUR|any|10-100',
      granularity: 'minutes',
      start: Date.parse('2026-11-30T12:00:00.000Z'),
      counts: { ...NO_OUTCOMES, failed: 1, outage },
      weighted: { ...NO_OUTCOMES, failed: 1, outage },
    });

    expect(outcomeBucketAdditions(bucket(0)).names).not.toHaveProperty('#outage');
    expect(outcomeBucketAdditions(bucket(2)).values).toMatchObject({ ':outage': 2, ':w_outage': 2 });
    const older = { sk: 'minutes#2026-11-30T12:00:00.000Z#EUR|any|10-100', failed: 3, w_failed: 2 };
    const read = outcomeBucketFromItem('pc_a', older);
    expect(read.counts).toEqual({ ...NO_OUTCOMES, failed: 3 });
    expect(read.weighted).toEqual({ ...NO_OUTCOMES, failed: 2 });
  });
});
