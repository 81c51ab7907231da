import { describe, expect, it } from 'vitest';
import { MAX_CHECK_INTERVAL_MS, type Payment, settle } from '../../functions/domain/payment.ts';
import { MONEY_UNDER_WAY_FOR_AT_MOST_MS, stillPending } from '../../functions/domain/payment-checks.ts';
import { a, attempt, now } from '../support/checkout-situations.ts';
import { orderLink } from '../support/psp-fixtures.ts';

/**
 * A payment whose PSP says the buyer's money is under way (a bank debit, which takes days) past its session's end
 * (docs/orchestration.md#missed-notifications): pending until its PSP settles it, asked at the longest interval,
 * and recorded as any session still pending past its end only once no debit can still be under way.
 */
const at = (ms: number) => new Date(now.getTime() + ms);
/** A pending attempt whose session ended at `now`, the PSP having told of a refused try on it before. */
const pastItsEnd = (): Payment => ({
  ...(settle(
    attempt(orderLink('10.00'), a),
    {
      state: 'pending',
      failure: null,
      reference: null,
      declinedAttempt: { code: 'insufficient_funds', message: 'Refused.' },
    },
    now,
  ) as Payment),
  session_expires_at: now.toISOString(),
});

describe('a payment whose money is under way past its session’s end', () => {
  it('stays pending, marked under way, asked again at the longest interval, its earlier refusal dropped', () => {
    const checked = stillPending(pastItsEnd(), at(60_000), true);
    expect(checked).toMatchObject({ status: 'pending', failure: null, money_under_way: true });
    expect(checked).not.toHaveProperty('declined_attempt');
    expect(Date.parse(checked.next_check_at as string)).toBe(at(60_000 + MAX_CHECK_INTERVAL_MS).getTime());
  });

  it('is recorded as today once the bound has passed: expired, neither under way nor failed by the refusal', () => {
    const justBefore = stillPending(pastItsEnd(), at(MONEY_UNDER_WAY_FOR_AT_MOST_MS - 1), true);
    expect(justBefore.status).toBe('pending');
    // The last check falls just after the bound, however long the interval.
    expect(Date.parse(justBefore.next_check_at as string)).toBe(
      at(MONEY_UNDER_WAY_FOR_AT_MOST_MS + 60_000).getTime(),
    );
    const past = stillPending(justBefore, at(MONEY_UNDER_WAY_FOR_AT_MOST_MS + 60_000), true);
    expect(past).toMatchObject({ status: 'expired', failure: { code: 'expired' }, next_check_at: null });
    expect(past).not.toHaveProperty('money_under_way');
  });

  it('is recorded expired as any other once its PSP no longer says the money is under way', () => {
    const underWay = stillPending(pastItsEnd(), at(60_000), true);
    const settled = stillPending(underWay, at(60_000 + MAX_CHECK_INTERVAL_MS));
    expect(settled).toMatchObject({ status: 'expired', next_check_at: null });
    expect(settled).not.toHaveProperty('money_under_way');
  });

  it('is marked under way as soon as its PSP answers so (a notification), its refused try dropped', () => {
    const told = settle(
      pastItsEnd(),
      { state: 'pending', failure: null, reference: null, moneyUnderWay: true },
      at(-60_000),
    );
    expect(told).toMatchObject({ status: 'pending', money_under_way: true });
    expect(told).not.toHaveProperty('declined_attempt');
    expect(
      told && settle(told, { state: 'pending', failure: null, reference: null, moneyUnderWay: true }, now),
    ).toBeUndefined();
  });

  it('is no longer marked under way once its PSP settles it, paid or failed', () => {
    const underWay = stillPending(pastItsEnd(), at(60_000), true);
    const paid = settle(underWay, { state: 'succeeded', failure: null, reference: 'pi_1' }, at(120_000));
    const failed = settle(
      underWay,
      { state: 'failed', failure: { code: 'insufficient_funds', message: 'Returned.' }, reference: null },
      at(120_000),
    );
    expect(paid).toMatchObject({ status: 'succeeded', next_check_at: null });
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'insufficient_funds' } });
    expect(paid).not.toHaveProperty('money_under_way');
    expect(failed).not.toHaveProperty('money_under_way');
  });

  it('still fails with its refused try past its end when no money is under way', () => {
    expect(stillPending(pastItsEnd(), at(60_000))).toMatchObject({
      status: 'failed',
      failure: { code: 'insufficient_funds' },
    });
  });
});
