import { describe, expect, it } from 'vitest';
import { type Payment, type ReportedFailure, settle } from '../../functions/domain/payment.ts';
import { stillPending } from '../../functions/domain/payment-checks.ts';
import { a, attempt, now } from '../support/checkout-situations.ts';
import { orderLink } from '../support/psp-fixtures.ts';

/**
 * A try its PSP refused on a session it keeps payable (docs/orchestration.md#decline-codes): kept on the pending
 * payment, which the session's expiry then fails with that decline; a success ignores it.
 */
const refused: ReportedFailure = {
  code: 'insufficient_funds',
  message: 'The PSP refused the buyer’s payment.',
};
const issuerDown: ReportedFailure = { code: 'psp_unavailable', message: 'The issuer was unavailable.' };
const pending = (declined = refused) =>
  settle(
    attempt(orderLink('10.00'), a),
    { state: 'pending', failure: null, reference: null, declinedAttempt: declined },
    now,
  ) as Payment;

describe('a try its PSP refused on a session still payable', () => {
  it('is kept on the pending payment, classed, once (the same decline again changes nothing)', () => {
    const payment = pending();
    expect(payment).toMatchObject({
      status: 'pending',
      failure: null,
      declined_attempt: { ...refused, class: 'soft' },
    });
    expect(
      settle(payment, { state: 'pending', failure: null, reference: null, declinedAttempt: refused }, now),
    ).toBeUndefined();
    expect(settle(payment, { state: 'pending', failure: null, reference: null }, now)).toBeUndefined();
    const later = settle(
      payment,
      { state: 'pending', failure: null, reference: null, declinedAttempt: issuerDown },
      now,
    );
    expect(later?.declined_attempt).toEqual({ ...issuerDown, class: 'outage' });
  });

  it('fails the payment with that decline when the session expires, its class the code’s', () => {
    const expired = settle(pending(issuerDown), { state: 'expired', failure: null, reference: null }, now);
    expect(expired).toMatchObject({
      status: 'failed',
      failure: { ...issuerDown, class: 'outage' },
      next_check_at: null,
    });
    expect(expired).not.toHaveProperty('declined_attempt');
  });

  it('fails the payment too when the sweeper finds the session past its end and its PSP still says pending', () => {
    const payment = { ...pending(), session_expires_at: new Date(now.getTime() - 1).toISOString() };
    expect(stillPending(payment, now)).toMatchObject({
      status: 'failed',
      failure: { ...refused, class: 'soft' },
    });
  });

  it('is ignored by a success: the payment succeeds, and keeps no decline', () => {
    const paid = settle(pending(), { state: 'succeeded', failure: null, reference: 'psp_1' }, now);
    expect(paid).toMatchObject({ status: 'succeeded', failure: null, provider_reference: 'psp_1' });
    expect(paid).not.toHaveProperty('declined_attempt');
  });

  it('leaves a session that expired without a refused try expired', () => {
    const payment = attempt(orderLink('10.00'), a);
    expect(settle(payment, { state: 'expired', failure: null, reference: null }, now)).toMatchObject({
      status: 'expired',
      failure: { code: 'expired', class: 'soft' },
    });
  });

  it('changes nothing on a payment that is no longer pending', () => {
    const canceled = settle(pending(), { state: 'canceled', failure: null, reference: null }, now) as Payment;
    expect(canceled).toMatchObject({ status: 'canceled', failure: { code: 'canceled' } });
    expect(
      settle(canceled, { state: 'pending', failure: null, reference: null, declinedAttempt: refused }, now),
    ).toBeUndefined();
    expect(settle(canceled, { state: 'expired', failure: null, reference: null }, now)).toBeUndefined();
  });
});
