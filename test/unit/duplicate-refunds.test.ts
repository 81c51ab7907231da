import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../functions/domain/errors.ts';
import { duplicateEntry, withDuplicate } from '../../functions/domain/link-payments.ts';
import { type Payment, startedPayment } from '../../functions/domain/payment.ts';
import type { PaymentLink } from '../../functions/domain/payment-link.ts';
import { refundableMinor, requestRefund, settleRefund } from '../../functions/domain/refund.ts';
import { now, paidLink } from '../support/paid-links.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';

// A single-use link's duplicate payment as its refunds' bound (docs/orchestration.md#duplicate-payments); the
// write that holds that bound under concurrency: test/integration/duplicate-payments.test.ts.

function secondPayment(link: PaymentLink, status: Payment['status'] = 'succeeded'): Payment {
  const attempt = {
    id: 'pay_2',
    link,
    connection: { id: 'pc_other', provider: 'sandbox' as const },
    amount: { value: '10.00', currency: 'EUR' },
  };
  const started = startedPayment(attempt, { id: 'cs_2', expires_at: now.toISOString() }, now);
  return { ...started, status, provider_reference: 'sbpay_2' };
}

const reportedTwice = (): PaymentLink => {
  const link = paidLink('10.00');
  return { ...link, reported_payments: ['pay_2'] };
};

describe('a single-use link’s duplicate payment', () => {
  it('is its stored payment, reported and succeeded, with its own connection and no refund yet', () => {
    const link = reportedTwice();

    expect(duplicateEntry(link, secondPayment(link))).toMatchObject({
      id: 'pay_2',
      connection_id: 'pc_other',
      provider: 'sandbox',
      reference: 'sbpay_2',
      amount: { value: '10.00', currency: 'EUR' },
      refund_reserved_minor: 0,
      refund_refunded_minor: 0,
    });
  });

  it('is not a payment the link never reported, nor a failed one, nor the link’s own', () => {
    const link = reportedTwice();
    const unreported = { ...link, reported_payments: [] };

    expect(duplicateEntry(unreported, secondPayment(unreported))).toBeUndefined();
    expect(duplicateEntry(link, secondPayment(link, 'failed'))).toBeUndefined();
    expect(duplicateEntry(link, { ...secondPayment(link), id: 'pay_1' })).toBeUndefined();
  });

  it('is refunded within its own amount, the link’s own payment keeping all of its bound', () => {
    const link = reportedTwice();
    const entry = duplicateEntry(link, secondPayment(link));
    if (!entry) throw new Error('no duplicate');
    const recorded = withDuplicate(link, entry);

    const refund = requestRefund(recorded, undefined, 're_1', now, anyRefunds, 'pay_2');
    const reserved: PaymentLink = {
      ...recorded,
      refunds: [refund],
      duplicate_payments: { pay_2: { ...entry, refund_reserved_minor: 1000 } },
    };
    const settled = settleRefund(
      reserved,
      're_1',
      { status: 'succeeded', providerReference: 're_x', failureMessage: null },
      now,
    );

    expect(refund).toMatchObject({ payment_id: 'pay_2', amount: { value: '10.00', currency: 'EUR' } });
    expect(() =>
      requestRefund(reserved, { value: '0.01', currency: 'EUR' }, 're_2', now, anyRefunds, 'pay_2'),
    ).toThrow(ValidationError);
    expect(refundableMinor(reserved)).toBe(1000n);
    if (settled?.kind !== 'settled') throw new Error('not settled');
    expect(settled.transition.after).toMatchObject({ refund_reserved_minor: 0, refund_refunded_minor: 0 });
    expect(settled.transition.after.duplicate_payments.pay_2).toMatchObject({
      refund_reserved_minor: 1000,
      refund_refunded_minor: 1000,
    });
  });

  it('is refused while not recorded: a refund names only the link’s payment or a recorded duplicate', () => {
    expect(() => requestRefund(reportedTwice(), undefined, 're_1', now, anyRefunds, 'pay_2')).toThrow(
      ValidationError,
    );
  });
});
