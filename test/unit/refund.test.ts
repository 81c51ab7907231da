import { describe, expect, it } from 'vitest';
import { InvalidStateError, ValidationError } from '../../functions/domain/errors.ts';
import { snapshotOf } from '../../functions/domain/link-events.ts';
import { fromMinorUnits } from '../../functions/domain/money.ts';
import { FIRST_CHECK_AFTER_MS, MAX_CHECK_INTERVAL_MS } from '../../functions/domain/payment.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import {
  afterRefundCheck,
  firstRefundCheckAt,
  MAX_REFUNDS_PER_LINK,
  type RefundRules,
  refundableMinor,
  requestRefund,
  settleRefund,
} from '../../functions/domain/refund.ts';
import { now, paidLink, reserved } from '../support/paid-links.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';

describe('amounts in minor units', () => {
  it('print with exactly the currency decimals', () => {
    expect(fromMinorUnits(1050n, 'EUR')).toBe('10.50');
    expect(fromMinorUnits(0n, 'EUR')).toBe('0.00');
    expect(fromMinorUnits(7n, 'EUR')).toBe('0.07');
    expect(fromMinorUnits(500n, 'JPY')).toBe('500');
    expect(fromMinorUnits(1234n, 'KWD')).toBe('1.234');
  });
});

describe('requesting a refund', () => {
  it('defaults to all that remains, in the currency decimals, and names the payment', () => {
    const link = paidLink('10.5');

    const refund = requestRefund(link, undefined, 're_1', now, anyRefunds);

    expect(refund).toMatchObject({
      id: 're_1',
      status: 'pending',
      payment_link_id: link.id,
      payment_id: 'pay_1',
      amount: { value: '10.50', currency: 'EUR' },
      failure: null,
    });
  });

  it('takes a partial amount as sent, and then only what remains', () => {
    const link = paidLink('10.00');
    const first = requestRefund(link, { value: '4', currency: 'EUR' }, 're_1', now, anyRefunds);
    const afterFirst = reserved(link, first, 400);

    expect(first.amount).toEqual({ value: '4', currency: 'EUR' });
    expect(refundableMinor(afterFirst)).toBe(600n);
    expect(requestRefund(afterFirst, undefined, 're_2', now, anyRefunds).amount.value).toBe('6.00');
    expect(() =>
      requestRefund(afterFirst, { value: '6.01', currency: 'EUR' }, 're_2', now, anyRefunds),
    ).toThrow(ValidationError);
  });

  it('refuses another currency, too many decimals, nothing left, and an unpaid link', () => {
    const link = paidLink('10.00');
    const full = reserved(link, requestRefund(link, undefined, 're_1', now, anyRefunds), 1000);
    const open = newPaymentLink(
      { account: 'acme', mode: 'test' },
      { amount: { value: '1', currency: 'EUR' } },
      now,
    );

    const pointerOf = (act: () => unknown) => {
      try {
        act();
      } catch (error) {
        return (error as ValidationError).errors?.[0]?.pointer;
      }
    };
    expect(
      pointerOf(() => requestRefund(link, { value: '1.00', currency: 'USD' }, 're_2', now, anyRefunds)),
    ).toBe('/amount/currency');
    expect(pointerOf(() => requestRefund(full, undefined, 're_2', now, anyRefunds))).toBe('/amount');
    expect(() => requestRefund(open, undefined, 're_2', now, anyRefunds)).toThrow(InvalidStateError);
  });

  it(`refuses a link that already has ${MAX_REFUNDS_PER_LINK} refunds`, () => {
    const link = paidLink('1000.00');
    const many = {
      ...link,
      refunds: Array.from({ length: MAX_REFUNDS_PER_LINK }, (_, index) =>
        requestRefund(link, { value: '1', currency: 'EUR' }, `re_${index}`, now, anyRefunds),
      ),
    };
    expect(() => requestRefund(many, { value: '1', currency: 'EUR' }, 're_x', now, anyRefunds)).toThrow(
      InvalidStateError,
    );
  });
});

describe('settling a refund', () => {
  const pending = () => {
    const link = paidLink('10.00');
    const refund = requestRefund(link, { value: '3', currency: 'EUR' }, 're_1', now, anyRefunds);
    return reserved(link, refund, 300);
  };

  it('counts a success as refunded and emits refund.succeeded with the refund and the link', () => {
    const link = pending();

    const result = settleRefund(
      link,
      're_1',
      { status: 'succeeded', providerReference: 're_psp', failureMessage: null },
      now,
    );

    if (result?.kind !== 'settled') throw new Error('expected a settled refund');
    const { after, event } = result.transition;
    expect(after.refund_refunded_minor).toBe(300);
    expect(after.refund_reserved_minor).toBe(300);
    expect(after.event_ids).toEqual([...link.event_ids, event.id]);
    expect(event.type).toBe('refund.succeeded');
    expect(event.data).toMatchObject({
      id: 're_1',
      status: 'succeeded',
      provider_reference: 're_psp',
      payment_link: {
        id: link.id,
        status: 'paid',
        amount_received: { value: '10.00', currency: 'EUR' },
        amount_refunded: { value: '3.00', currency: 'EUR' },
        refund_status: 'partial',
      },
    });
    expect(snapshotOf(after, now).amount_refunded).toEqual({ value: '3.00', currency: 'EUR' });
    expect(snapshotOf(link, now)).toMatchObject({
      amount_refunded: { value: '0.00' },
      refund_status: 'none',
    });
  });

  it('frees the reservation of a failure and emits refund.failed with the reason', () => {
    const result = settleRefund(
      pending(),
      're_1',
      { status: 'failed', providerReference: null, failureMessage: 'Insufficient balance' },
      now,
    );

    if (result?.kind !== 'settled') throw new Error('expected a settled refund');
    expect(result.transition.after.refund_reserved_minor).toBe(0);
    expect(result.transition.after.refund_refunded_minor ?? 0).toBe(0);
    expect(result.refund.failure).toEqual({ code: 'refund_failed', message: 'Insufficient balance' });
    expect(result.transition.event.type).toBe('refund.failed');
  });

  it('reverses a succeeded refund the PSP later fails: failed, no longer refunded nor reserved, refund.failed', () => {
    const settled = settleRefund(
      pending(),
      're_1',
      { status: 'succeeded', providerReference: 're_psp', failureMessage: null },
      now,
    );
    if (settled?.kind !== 'settled') throw new Error('expected a settled refund');

    const reversed = settleRefund(
      settled.transition.after,
      're_1',
      {
        status: 'failed',
        providerReference: 're_psp',
        failureMessage: 'The PSP: charge_for_pending_refund_disputed',
      },
      now,
    );

    if (reversed?.kind !== 'settled') throw new Error('expected a reversal');
    expect(reversed.from).toBe('succeeded');
    expect(reversed.refund).toMatchObject({
      status: 'failed',
      failure: { code: 'refund_failed', message: 'The PSP: charge_for_pending_refund_disputed' },
    });
    expect(reversed.transition.after).toMatchObject({ refund_refunded_minor: 0, refund_reserved_minor: 0 });
    expect(reversed.transition.event.type).toBe('refund.failed');
    expect(
      settleRefund(
        reversed.transition.after,
        're_1',
        { status: 'succeeded', providerReference: 're_psp', failureMessage: null },
        now,
      ),
    ).toBeUndefined();
  });

  /** PSPs' refund rules as their descriptors state them, by a made-up provider id. */
  const rules: Record<string, RefundRules> = {
    hundredths: {
      amounts: { psp: 'Hundredths', wholeHundredths: ['KWD'], minimums: { EUR: 50 } },
      refunds: 'partial',
    },
    whole_idr: { amounts: { psp: 'Whole IDR', exponents: { IDR: 0 } }, refunds: 'partial' },
    whole_only: { amounts: { psp: 'Whole only' }, refunds: 'whole' },
    none: { amounts: { psp: 'No refunds' }, refunds: 'none' },
  };
  const rulesOf = (provider: string) => rules[provider] ?? anyRefunds(provider);

  it('refuses, with a 422, a refund the PSP that took the payment cannot express', () => {
    const link = paidLink('10.000', 'KWD', 'hundredths');
    expect(() => requestRefund(link, { value: '1.005', currency: 'KWD' }, 're_1', now, rulesOf)).toThrow(
      ValidationError,
    );
    expect(requestRefund(link, { value: '1.01', currency: 'KWD' }, 're_1', now, rulesOf).amount.value).toBe(
      '1.01',
    );
    const idr = paidLink('100.00', 'IDR', 'whole_idr');
    expect(() => requestRefund(idr, { value: '10.50', currency: 'IDR' }, 're_2', now, rulesOf)).toThrow(
      ValidationError,
    );
  });

  it("does not hold a refund to the PSP's minimum charge", () => {
    const link = paidLink('10.00', 'EUR', 'hundredths');
    expect(requestRefund(link, { value: '0.10', currency: 'EUR' }, 're_1', now, rulesOf).amount.value).toBe(
      '0.10',
    );
  });

  it('refuses part of a payment whose PSP refunds only whole payments (422), and takes the whole', () => {
    const link = paidLink('10.00', 'EUR', 'whole_only');
    const pointerOf = (act: () => unknown) => {
      try {
        act();
      } catch (error) {
        return (error as ValidationError).errors?.[0]?.pointer;
      }
    };
    expect(
      pointerOf(() => requestRefund(link, { value: '4.00', currency: 'EUR' }, 're_1', now, rulesOf)),
    ).toBe('/amount/value');
    expect(requestRefund(link, undefined, 're_1', now, rulesOf).amount.value).toBe('10.00');
    expect(requestRefund(link, { value: '10', currency: 'EUR' }, 're_1', now, rulesOf).amount.value).toBe(
      '10',
    );
  });

  it('refuses any refund of a payment whose PSP takes no refunds through us (409), naming the PSP', () => {
    const link = paidLink('10.00', 'EUR', 'none');
    expect(() => requestRefund(link, undefined, 're_1', now, rulesOf)).toThrow(InvalidStateError);
    expect(() => requestRefund(link, undefined, 're_1', now, rulesOf)).toThrow(/No refunds takes no refunds/);
  });

  it('settles once: a repeat of the outcome, an unknown refund or a pending status without news change nothing', () => {
    const link = pending();
    const settled = settleRefund(
      link,
      're_1',
      { status: 'succeeded', providerReference: null, failureMessage: null },
      now,
    );
    if (settled?.kind !== 'settled') throw new Error('expected a settled refund');

    expect(
      settleRefund(
        settled.transition.after,
        're_1',
        { status: 'succeeded', providerReference: null, failureMessage: null },
        now,
      ),
    ).toBeUndefined();
    expect(
      settleRefund(
        settled.transition.after,
        're_1',
        { status: 'pending', providerReference: 'other', failureMessage: null },
        now,
      ),
    ).toBeUndefined();
    expect(
      settleRefund(
        link,
        're_404',
        { status: 'succeeded', providerReference: null, failureMessage: null },
        now,
      ),
    ).toBeUndefined();
    expect(
      settleRefund(link, 're_1', { status: 'pending', providerReference: null, failureMessage: null }, now),
    ).toBeUndefined();
    expect(
      settleRefund(
        link,
        're_1',
        { status: 'pending', providerReference: 're_psp', failureMessage: null },
        now,
      ),
    ).toMatchObject({
      kind: 'reference',
    });
  });
});

describe('the refund sweeper’s schedule', () => {
  const pendingLink = () => {
    const link = paidLink('10.00');
    return reserved(link, requestRefund(link, undefined, 're_1', now, anyRefunds), 1000);
  };
  const waitAfter = (link: PaymentLink, at: Date) =>
    Date.parse(link.refund_check_at as string) - at.getTime();

  it('first looks at a new refund after the time a notification usually takes', () => {
    expect(Date.parse(firstRefundCheckAt(now)) - now.getTime()).toBe(FIRST_CHECK_AFTER_MS);
  });

  it('waits twice as long after each check that finds a refund pending, up to the longest interval', () => {
    let link = pendingLink();
    const waits: number[] = [];
    for (let check = 0; check < 12; check++) {
      const at = new Date(Date.parse(link.refund_check_at as string));
      link = afterRefundCheck(link, at) as PaymentLink;
      waits.push(waitAfter(link, at));
    }
    expect(waits.slice(0, 3)).toEqual([2, 4, 8].map((factor) => factor * FIRST_CHECK_AFTER_MS));
    expect(Math.max(...waits)).toBe(MAX_CHECK_INTERVAL_MS);
    expect(link.refund_checks).toBe(12);
  });

  it('takes the link off the list once no refund is pending, and leaves a link never on it alone', () => {
    const link = pendingLink();
    const settled = settleRefund(
      link,
      're_1',
      { status: 'succeeded', providerReference: 'r1', failureMessage: null },
      now,
    );
    if (settled?.kind !== 'settled') throw new Error('expected a settlement');
    const after = afterRefundCheck(settled.transition.after, now);
    expect(after).toMatchObject({ refund_check_at: null, version: settled.transition.after.version + 1 });
    expect(afterRefundCheck(paidLink(), now)).toBeUndefined();
  });
});
