import { describe, expect, it } from 'vitest';
import {
  amountProblem,
  fromPspMinorUnits,
  linesProblem,
  pspMinorUnits,
} from '../../../../domain/psp-rules.ts';
import { stripe } from '../descriptor.ts';

const rules = stripe.amounts;

describe('amounts Stripe can take (its descriptor)', () => {
  it.each(['KWD', 'BHD', 'JOD', 'OMR', 'TND'])(
    'takes %s only when the third decimal is 0, for a payment as for a refund',
    (currency) => {
      for (const use of ['payment', 'refund'] as const) {
        expect(amountProblem(rules, { value: '10.005', currency }, use)).toMatch(/third decimal must be 0/);
        expect(amountProblem(rules, { value: '10.01', currency }, use)).toBeUndefined();
        expect(amountProblem(rules, { value: '10.010', currency }, use)).toBeUndefined();
        expect(amountProblem(rules, { value: '7', currency }, use)).toBeUndefined();
      }
      expect(amountProblem(rules, { value: '0.001', currency }, 'refund')).toMatch(/third decimal must be 0/);
    },
  );

  it('takes MGA without decimals and ISK in two-decimal form; other currencies as ISO 4217 says', () => {
    expect(amountProblem(rules, { value: '1000.50', currency: 'MGA' }, 'payment')).toMatch(/cannot express/);
    expect(amountProblem(rules, { value: '10.5', currency: 'MGA' }, 'refund')).toMatch(/cannot express/);
    expect(amountProblem(rules, { value: '1000', currency: 'MGA' }, 'payment')).toBeUndefined();
    expect(pspMinorUnits(rules, { value: '1000', currency: 'MGA' })).toBe(1000n);
    expect(pspMinorUnits(rules, { value: '500', currency: 'ISK' })).toBe(50000n);
    expect(amountProblem(rules, { value: '10.55', currency: 'EUR' }, 'payment')).toBeUndefined();
    expect(amountProblem(rules, { value: '500', currency: 'JPY' }, 'payment')).toBeUndefined();
  });

  it('bounds a payment by its minimum and maximum charges, not a refund', () => {
    expect(amountProblem(rules, { value: '0.30', currency: 'EUR' }, 'payment')).toMatch(/minimum/);
    expect(amountProblem(rules, { value: '0.50', currency: 'EUR' }, 'payment')).toBeUndefined();
    expect(amountProblem(rules, { value: '0.30', currency: 'GBP' }, 'payment')).toBeUndefined();
    expect(amountProblem(rules, { value: '1000000', currency: 'EUR' }, 'payment')).toMatch(/maximum/);
    expect(amountProblem(rules, { value: '999999.99', currency: 'EUR' }, 'payment')).toBeUndefined();
    expect(amountProblem(rules, { value: '9999999999.99', currency: 'IDR' }, 'payment')).toBeUndefined();
    // A partial refund of a payment Stripe took may be smaller than any charge.
    expect(amountProblem(rules, { value: '0.30', currency: 'EUR' }, 'refund')).toBeUndefined();
  });

  it('checks each line, whatever the lines add up to, but not against the minimum charge', () => {
    const kwd = (value: string) => ({ value, currency: 'KWD' });
    expect(linesProblem(rules, [kwd('1.000'), kwd('1.005')])).toMatch(/^Line 2: .*third decimal/);
    expect(linesProblem(rules, [kwd('1.000'), kwd('1.010')])).toBeUndefined();
    expect(linesProblem(rules, [{ value: '0.10', currency: 'EUR' }])).toBeUndefined();
  });

  it('reads back its minor units, with the lowercase currency, in ISO 4217 decimals', () => {
    expect(fromPspMinorUnits(rules, 3750, 'eur')).toEqual({ value: '37.50', currency: 'EUR' });
    expect(fromPspMinorUnits(rules, 50_000, 'isk')).toEqual({ value: '500', currency: 'ISK' });
    expect(fromPspMinorUnits(rules, 1000, 'mga')).toEqual({ value: '1000.00', currency: 'MGA' });
    expect(fromPspMinorUnits(rules, 12_340, 'kwd')).toEqual({ value: '12.340', currency: 'KWD' });
  });
});
