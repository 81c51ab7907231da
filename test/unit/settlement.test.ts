import { describe, expect, it } from 'vitest';
import { matchedItems, reportedFeeOf, settlementSortTime } from '../../functions/domain/settlement.ts';
import { settlementId } from '../../functions/use-cases/settlements.ts';

const eur = (value: string) => ({ value, currency: 'EUR' });
const line = {
  kind: 'payment' as const,
  psp_reference: 'txn_1',
  payment_reference: 'pi_1',
  amount: eur('100.00'),
  fee: eur('1.75'),
  net: eur('98.25'),
};

describe('a settlement', () => {
  it('takes a payout line’s fee for a payment without the PSP’s own, and never replaces the PSP’s', () => {
    const reported = { amount: eur('1.75'), net: eur('98.25'), source: 'reported' as const };
    expect(reportedFeeOf(undefined, line)).toEqual(reported);
    expect(reportedFeeOf({ amount: eur('2.00'), net: eur('98.00'), source: 'configured' }, line)).toEqual(
      reported,
    );
    expect(
      reportedFeeOf({ amount: eur('1.50'), net: eur('98.50'), source: 'reported' }, line),
    ).toBeUndefined();
    expect(reportedFeeOf(undefined, { ...line, fee: null })).toBeUndefined();
    expect(reportedFeeOf(undefined, { ...line, kind: 'refund' })).toBeUndefined();
  });

  it('marks each line matched or not by its own reference', () => {
    const matches = new Map([['txn_1', { link_id: 'pl_1', payment_id: 'pay_1', refund_id: null }]]);
    expect(matchedItems([line, { ...line, psp_reference: 'txn_2' }], matches)).toEqual([
      { ...line, matched: true, link_id: 'pl_1', payment_id: 'pay_1', refund_id: null },
      { ...line, psp_reference: 'txn_2', matched: false, link_id: null, payment_id: null, refund_id: null },
    ]);
  });

  it('is listed by the start of its arrival day, or when its PSP made it while the day is unknown', () => {
    const made = '2026-11-28T17:03:00.000Z';
    expect(settlementSortTime({ arrival_date: '2026-11-30', psp_created_at: made })).toBe(
      '2026-11-30T00:00:00.000Z',
    );
    expect(settlementSortTime({ arrival_date: null, psp_created_at: made })).toBe(made);
  });

  it('has one id per connection and payout, so reading a payout again names the same settlement', () => {
    const id = settlementId('pc_a', 'po_1');
    expect(id).toMatch(/^stl_[0-9A-Za-z]{24}$/);
    expect(settlementId('pc_a', 'po_1')).toBe(id);
    expect(settlementId('pc_b', 'po_1')).not.toBe(id);
  });
});
