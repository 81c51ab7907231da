import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeeLine } from '../../functions/domain/connection.ts';
import { fromMinorUnits, toMinorUnits } from '../../functions/domain/money.ts';
import {
  configuredFee,
  paymentMoney,
  refundStateOf,
  reportedFee,
} from '../../functions/domain/payment-money.ts';

const eur = (value: string) => ({ value, currency: 'EUR' });

describe("a payment's configured fee", () => {
  it.each([
    // percent, fixed, amount → fee, net
    [1.4, 0.25, eur('10.00'), '0.39', '9.61'],
    [2.9, 0.3, eur('100.00'), '3.20', '96.80'],
    // 1% of 0.50 is 0.005: half up, once, after the fixed part is added.
    [1, 0, eur('0.50'), '0.01', '0.49'],
    [1.5, 0.001, eur('0.10'), '0.00', '0.10'],
    [3.6, 0.3, { value: '1000', currency: 'JPY' }, '36', '964'],
    [1.25, 0.05, { value: '12.345', currency: 'KWD' }, '0.204', '12.141'],
    // Never more than the amount: a fixed part larger than a small payment takes all of it.
    [0, 0.25, eur('0.10'), '0.10', '0.00'],
  ])('is %s%% plus %s of %o: %s, and %s net', (percent, fixed, amount, fee, net) => {
    expect(configuredFee([{ percent, fixed }], amount, undefined)).toEqual({
      amount: { value: fee, currency: amount.currency },
      net: { value: net, currency: amount.currency },
      source: 'configured',
    });
  });

  it("takes the line of the payment's currency and method over a general one, and none without a line", () => {
    const lines: FeeLine[] = [
      { percent: 2, fixed: 0 },
      { percent: 1, fixed: 0, currency: 'EUR' },
      { percent: 0.5, fixed: 0, currency: 'EUR', method: 'ideal' },
    ];
    expect(configuredFee(lines, eur('100.00'), 'ideal')?.amount.value).toBe('0.50');
    expect(configuredFee(lines, eur('100.00'), undefined)?.amount.value).toBe('1.00');
    expect(configuredFee(lines, { value: '100.00', currency: 'USD' }, undefined)?.amount.value).toBe('2.00');
    expect(configuredFee([], eur('100.00'), undefined)).toBeUndefined();
    expect(configuredFee(null, eur('100.00'), undefined)).toBeUndefined();
  });

  it('and its net add up to the amount, neither negative, for any line and amount', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }).map((n) => n / 1000),
        fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1000),
        fc.bigInt({ min: 1n, max: 10n ** 14n }),
        (percent, fixed, minor) => {
          const amount = eur(fromMinorUnits(minor, 'EUR'));
          const fee = configuredFee([{ percent, fixed }], amount, undefined);
          if (!fee) throw new Error('a line applies');
          const feeMinor = toMinorUnits(fee.amount);
          expect(feeMinor >= 0n && feeMinor <= minor).toBe(true);
          expect(feeMinor + toMinorUnits(fee.net)).toBe(minor);
        },
      ),
    );
  });
});

describe("a payment's reported fee", () => {
  it('is the fee and net the PSP gave, or the amount less the one it gave', () => {
    const reported = (amount: string, net: string) => ({
      amount: eur(amount),
      net: eur(net),
      source: 'reported',
    });
    expect(reportedFee(eur('10.00'), { fee: eur('0.39') })).toEqual(reported('0.39', '9.61'));
    expect(reportedFee(eur('10.00'), { net: eur('9.7') })).toEqual(reported('0.30', '9.70'));
    expect(reportedFee(eur('10.00'), { fee: eur('0.39'), net: eur('9.50') })).toEqual(
      reported('0.39', '9.50'),
    );
    const usd = { value: '0.45', currency: 'USD' };
    expect(reportedFee(eur('10.00'), { fee: eur('0.40'), net: usd })).toEqual({
      amount: eur('0.40'),
      net: usd,
      source: 'reported',
    });
  });

  it('is none when the PSP gave none, or one in another currency, above the amount, below zero or unreadable', () => {
    expect(reportedFee(eur('10.00'), undefined)).toBeUndefined();
    expect(reportedFee(eur('10.00'), {})).toBeUndefined();
    expect(reportedFee(eur('10.00'), { fee: { value: '0.39', currency: 'USD' } })).toBeUndefined();
    expect(reportedFee(eur('10.00'), { fee: eur('10.01') })).toBeUndefined();
    expect(reportedFee(eur('10.00'), { net: eur('-0.01') })).toBeUndefined();
    expect(reportedFee(eur('10.00'), { fee: eur('0.391') })).toBeUndefined();
    expect(reportedFee(eur('10.00'), { fee: eur('-0.39'), net: eur('10.39') })).toBeUndefined();
    expect(reportedFee(eur('10.00'), { fee: eur('0.39'), net: eur('9.611') })).toBeUndefined();
  });
});

describe("a payment's refunds", () => {
  it('are none, partial or full of what it charged', () => {
    expect(refundStateOf(1000n, 0n)).toBe('none');
    expect(refundStateOf(1000n, 1n)).toBe('partial');
    expect(refundStateOf(1000n, 999n)).toBe('partial');
    expect(refundStateOf(1000n, 1000n)).toBe('full');
  });

  it('show in its currency, with its fee when known', () => {
    expect(paymentMoney(eur('49.90'), 1000, undefined)).toEqual({
      amount_refunded: eur('10.00'),
      refund_status: 'partial',
      fee: null,
      net: null,
      fee_source: null,
    });
    const fee = configuredFee([{ percent: 1.4, fixed: 0.25 }], eur('10.00'), undefined);
    expect(paymentMoney(eur('10.00'), 0, fee)).toMatchObject({
      amount_refunded: eur('0.00'),
      refund_status: 'none',
      fee: eur('0.39'),
      net: eur('9.61'),
      fee_source: 'configured',
    });
  });
});
