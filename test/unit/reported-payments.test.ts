import { describe, expect, it } from 'vitest';
import { endedByUs, type Payment, settle } from '../../functions/domain/payment.ts';
import { asReportedFailure } from '../../functions/domain/reported-payments.ts';
import { a, attempt, now } from '../support/checkout-situations.ts';
import { orderLink } from '../support/psp-fixtures.ts';

/**
 * A failure the merchant was told of is what the payment records (docs/orchestration.md#what-the-merchant-is-told),
 * whatever another writer stored between the event and the payment's write.
 */
const declined = { code: 'insufficient_funds', message: 'The PSP refused the buyer’s payment.' } as const;
const opened = () => attempt(orderLink('10.00'), a);
const told = settle(opened(), { state: 'failed', failure: declined, reference: null }, now) as Payment;
const later = new Date(now.getTime() + 1_000);

describe('a payment whose failure was reported', () => {
  it('records that failure over an end written meanwhile (canceled by us, expired), one version on', () => {
    const canceled = endedByUs(opened(), now) as Payment;
    const expired = settle(opened(), { state: 'expired', failure: null, reference: null }, now) as Payment;
    for (const ended of [canceled, expired]) {
      expect(asReportedFailure(ended, told, later)).toMatchObject({
        status: 'failed',
        failure: { ...declined, class: 'soft' },
        next_check_at: null,
        updated_at: later.toISOString(),
        version: ended.version + 1,
      });
    }
  });

  it('records it over a payment still pending with another refused try', () => {
    const pending = settle(
      opened(),
      {
        state: 'pending',
        failure: null,
        reference: null,
        declinedAttempt: { ...declined, code: 'do_not_honor' },
      },
      now,
    ) as Payment;
    const failed = asReportedFailure(pending, told, later);
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'insufficient_funds' } });
    expect(failed).not.toHaveProperty('declined_attempt');
  });

  it('leaves a success (the truth wins) and a failure already recorded as they are', () => {
    const paid = settle(opened(), { state: 'succeeded', failure: null, reference: 'psp_1' }, now) as Payment;
    expect(asReportedFailure(paid, told, later)).toBeUndefined();
    expect(asReportedFailure(told, told, later)).toBeUndefined();
  });
});
