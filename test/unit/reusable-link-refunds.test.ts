import { describe, expect, it } from 'vitest';
import type { ValidationError } from '../../functions/domain/errors.ts';
import { snapshotOf } from '../../functions/domain/link-events.ts';
import { addPayment } from '../../functions/domain/link-payments.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { paymentMoney } from '../../functions/domain/payment-money.ts';
import { requestRefund, settleRefund } from '../../functions/domain/refund.ts';
import { now, paidLink, reserved } from '../support/paid-links.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';

describe('refunds of a reusable link', () => {
  /** A reusable link of 10.00 paid by pay_1 and pay_2 (the resources' fields do not matter here). */
  function reusablePaidTwice(): PaymentLink {
    let link = newPaymentLink(
      { account: 'acme', mode: 'test' },
      { amount: { value: '10.00', currency: 'EUR' }, reusable: true },
      now,
    );
    for (const id of ['pay_1', 'pay_2']) {
      const payment = {
        id,
        connection_id: 'pc_sandbox',
        provider: 'sandbox' as const,
        reference: `sb_${id}`,
        amount: { value: '10.00', currency: 'EUR' },
      };
      const resource = {
        ...payment,
        object: 'payment' as const,
        status: 'succeeded' as const,
        amount: { value: '10.00', currency: 'EUR' },
        provider_reference: payment.reference,
        failure: null,
        ...paymentMoney({ value: '10.00', currency: 'EUR' }, 0, undefined),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      link = (addPayment(link, payment, resource, now) as { after: PaymentLink }).after;
    }
    return link;
  }

  /** The link as the repository leaves it after reserving `refund` on its payment. */
  function reservedOnPayment(
    link: PaymentLink,
    refund: ReturnType<typeof requestRefund>,
    minor: number,
  ): PaymentLink {
    const entry = link.paid_payments?.[refund.payment_id];
    const after = reserved(link, refund, minor);
    if (!entry || !after.reusable) throw new Error('not a payment of the reusable link');
    return {
      ...after,
      paid_payments: {
        ...link.paid_payments,
        [entry.id]: { ...entry, refund_reserved_minor: entry.refund_reserved_minor + minor },
      },
    };
  }

  const pointerOf = (act: () => unknown) => {
    try {
      act();
    } catch (error) {
      return (error as ValidationError).errors?.[0]?.pointer;
    }
  };

  it('name the payment: required, and one of the link’s succeeded payments', () => {
    const link = reusablePaidTwice();
    expect(pointerOf(() => requestRefund(link, undefined, 're_1', now, anyRefunds))).toBe('/payment_id');
    expect(pointerOf(() => requestRefund(link, undefined, 're_1', now, anyRefunds, 'pay_other'))).toBe(
      '/payment_id',
    );
    expect(requestRefund(link, undefined, 're_1', now, anyRefunds, 'pay_2')).toMatchObject({
      payment_id: 'pay_2',
      amount: { value: '10.00', currency: 'EUR' },
    });
  });

  it('are bounded per payment: a fully refunded payment leaves the other one whole', () => {
    const link = reusablePaidTwice();
    const first = requestRefund(link, undefined, 're_1', now, anyRefunds, 'pay_1');
    const afterFirst = reservedOnPayment(link, first, 1000);
    expect(
      pointerOf(() =>
        requestRefund(afterFirst, { value: '0.01', currency: 'EUR' }, 're_2', now, anyRefunds, 'pay_1'),
      ),
    ).toBe('/amount/value');
    expect(requestRefund(afterFirst, undefined, 're_2', now, anyRefunds, 'pay_2').amount.value).toBe('10.00');
    // The link's own totals count both payments' refunds (amount_refunded), beyond one payment's amount.
    const both = reservedOnPayment(
      afterFirst,
      requestRefund(afterFirst, undefined, 're_2', now, anyRefunds, 'pay_2'),
      1000,
    );
    expect(both.refund_reserved_minor).toBe(2000);
  });

  it('settle on the payment too: a failure frees that payment’s reservation, a success counts on it', () => {
    const link = reusablePaidTwice();
    const refund = requestRefund(link, { value: '4', currency: 'EUR' }, 're_1', now, anyRefunds, 'pay_2');
    const pending = reservedOnPayment(link, refund, 400);
    const ok = settleRefund(
      pending,
      're_1',
      { status: 'succeeded', providerReference: 'r', failureMessage: null },
      now,
    );
    if (ok?.kind !== 'settled') throw new Error('expected a settled refund');
    expect(ok.transition.after.paid_payments?.pay_2).toMatchObject({
      refund_reserved_minor: 400,
      refund_refunded_minor: 400,
    });
    expect(ok.transition.after.paid_payments?.pay_1).toMatchObject({ refund_reserved_minor: 0 });
    // The link's sums are over both payments: 4.00 of 20.00 received.
    expect(snapshotOf(ok.transition.after, now)).toMatchObject({
      amount_received: { value: '20.00', currency: 'EUR' },
      amount_refunded: { value: '4.00', currency: 'EUR' },
      refund_status: 'partial',
    });
    const failed = settleRefund(
      pending,
      're_1',
      { status: 'failed', providerReference: null, failureMessage: 'no' },
      now,
    );
    if (failed?.kind !== 'settled') throw new Error('expected a settled refund');
    expect(failed.transition.after.paid_payments?.pay_2).toMatchObject({
      refund_reserved_minor: 0,
      refund_refunded_minor: 0,
    });
  });

  it('are bounded by what each payment charged', () => {
    const link = reusablePaidTwice();
    const entry = link.paid_payments?.pay_2;
    if (!entry || !link.reusable) throw new Error('no pay_2');
    // A payment at another amount than the link's (a buyer-chosen amount): its own amount bounds its refunds.
    const cheaper = {
      ...link,
      paid_payments: {
        ...link.paid_payments,
        pay_2: { ...entry, amount: { value: '6.00', currency: 'EUR' } },
      },
    };
    expect(requestRefund(cheaper, undefined, 're_1', now, anyRefunds, 'pay_2').amount.value).toBe('6.00');
    expect(
      pointerOf(() =>
        requestRefund(cheaper, { value: '6.01', currency: 'EUR' }, 're_1', now, anyRefunds, 'pay_2'),
      ),
    ).toBe('/amount/value');
    expect(requestRefund(cheaper, undefined, 're_1', now, anyRefunds, 'pay_1').amount.value).toBe('10.00');
  });

  it('of a single-use link may name its payment, and only its payment', () => {
    const link = paidLink('10.00');
    expect(requestRefund(link, undefined, 're_1', now, anyRefunds, 'pay_1').payment_id).toBe('pay_1');
    expect(pointerOf(() => requestRefund(link, undefined, 're_1', now, anyRefunds, 'pay_2'))).toBe(
      '/payment_id',
    );
  });
});
