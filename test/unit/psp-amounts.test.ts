import { describe, expect, it } from 'vitest';
import { pspAmountProblem, stripeMinorUnits } from '../../functions/domain/psp-amounts.ts';

describe('amounts each PSP can take', () => {
  it.each(['KWD', 'BHD', 'JOD', 'OMR', 'TND'])(
    'Stripe takes %s only when the third decimal is 0',
    (currency) => {
      expect(pspAmountProblem('stripe', { value: '10.005', currency })).toMatch(/third decimal must be 0/);
      expect(pspAmountProblem('stripe', { value: '0.001', currency })).toMatch(/third decimal must be 0/);
      expect(pspAmountProblem('stripe', { value: '10.01', currency })).toBeUndefined();
      expect(pspAmountProblem('stripe', { value: '10.010', currency })).toBeUndefined();
      expect(pspAmountProblem('stripe', { value: '7', currency })).toBeUndefined();
    },
  );

  it('Stripe takes MGA without decimals and ISK in two-decimal form; other currencies as ISO 4217 says', () => {
    expect(pspAmountProblem('stripe', { value: '10.5', currency: 'MGA' })).toMatch(/without decimals/);
    expect(stripeMinorUnits({ value: '1000', currency: 'MGA' })).toBe(1000n);
    expect(stripeMinorUnits({ value: '500', currency: 'ISK' })).toBe(50000n);
    expect(pspAmountProblem('stripe', { value: '10.55', currency: 'EUR' })).toBeUndefined();
    expect(pspAmountProblem('stripe', { value: '500', currency: 'JPY' })).toBeUndefined();
  });

  it('the other providers take every valid amount', () => {
    for (const provider of ['sandbox', 'mollie', 'adyen'] as const) {
      expect(pspAmountProblem(provider, { value: '10.005', currency: 'KWD' })).toBeUndefined();
    }
  });
});
