import { describe, expect, it } from 'vitest';
import {
  adyenMinorUnits,
  checkoutMinorUnits,
  fromAdyenMinorUnits,
  fromCheckoutMinorUnits,
  fromStripeMinorUnits,
  pspAmountProblem,
  pspLinesProblem,
  stripeMinorUnits,
} from '../../functions/domain/psp-amounts.ts';

describe('amounts each PSP can take', () => {
  it.each(['KWD', 'BHD', 'JOD', 'OMR', 'TND'])(
    'Stripe takes %s only when the third decimal is 0, for a payment as for a refund',
    (currency) => {
      for (const use of ['payment', 'refund'] as const) {
        expect(pspAmountProblem('stripe', { value: '10.005', currency }, use)).toMatch(
          /third decimal must be 0/,
        );
        expect(pspAmountProblem('stripe', { value: '10.01', currency }, use)).toBeUndefined();
        expect(pspAmountProblem('stripe', { value: '10.010', currency }, use)).toBeUndefined();
        expect(pspAmountProblem('stripe', { value: '7', currency }, use)).toBeUndefined();
      }
      expect(pspAmountProblem('stripe', { value: '0.001', currency }, 'refund')).toMatch(
        /third decimal must be 0/,
      );
    },
  );

  it('Stripe takes MGA without decimals and ISK in two-decimal form; other currencies as ISO 4217 says', () => {
    expect(pspAmountProblem('stripe', { value: '1000.50', currency: 'MGA' }, 'payment')).toMatch(
      /cannot express/,
    );
    expect(pspAmountProblem('stripe', { value: '10.5', currency: 'MGA' }, 'refund')).toMatch(
      /cannot express/,
    );
    expect(pspAmountProblem('stripe', { value: '1000', currency: 'MGA' }, 'payment')).toBeUndefined();
    expect(stripeMinorUnits({ value: '1000', currency: 'MGA' })).toBe(1000n);
    expect(stripeMinorUnits({ value: '500', currency: 'ISK' })).toBe(50000n);
    expect(pspAmountProblem('stripe', { value: '10.55', currency: 'EUR' }, 'payment')).toBeUndefined();
    expect(pspAmountProblem('stripe', { value: '500', currency: 'JPY' }, 'payment')).toBeUndefined();
  });

  it("Stripe's minimum and maximum charges bound a payment, not a refund", () => {
    expect(pspAmountProblem('stripe', { value: '0.30', currency: 'EUR' }, 'payment')).toMatch(/minimum/);
    expect(pspAmountProblem('stripe', { value: '0.50', currency: 'EUR' }, 'payment')).toBeUndefined();
    expect(pspAmountProblem('stripe', { value: '0.30', currency: 'GBP' }, 'payment')).toBeUndefined();
    expect(pspAmountProblem('stripe', { value: '1000000', currency: 'EUR' }, 'payment')).toMatch(/maximum/);
    expect(pspAmountProblem('stripe', { value: '999999.99', currency: 'EUR' }, 'payment')).toBeUndefined();
    // A partial refund of a payment Stripe took may be smaller than any charge.
    expect(pspAmountProblem('stripe', { value: '0.30', currency: 'EUR' }, 'refund')).toBeUndefined();
  });

  it('Adyen takes no more decimals than its minor units of the currency (IDR and CVE have none)', () => {
    for (const use of ['payment', 'refund'] as const) {
      expect(pspAmountProblem('adyen', { value: '10.50', currency: 'IDR' }, use)).toMatch(/cannot express/);
      expect(pspAmountProblem('adyen', { value: '10', currency: 'IDR' }, use)).toBeUndefined();
      expect(pspAmountProblem('adyen', { value: '10.50', currency: 'EUR' }, use)).toBeUndefined();
      expect(pspAmountProblem('adyen', { value: '10.005', currency: 'KWD' }, use)).toBeUndefined();
    }
    expect(adyenMinorUnits({ value: '500', currency: 'ISK' })).toBe(50000n);
  });

  it('Checkout.com takes three-decimal amounts only in whole hundredths, and reads its minor units back', () => {
    for (const use of ['payment', 'refund'] as const) {
      expect(pspAmountProblem('checkout', { value: '10.005', currency: 'KWD' }, use)).toMatch(
        /whole hundredths/,
      );
      expect(pspAmountProblem('checkout', { value: '10.010', currency: 'KWD' }, use)).toBeUndefined();
      expect(pspAmountProblem('checkout', { value: '1000', currency: 'JPY' }, use)).toBeUndefined();
    }
    expect(checkoutMinorUnits({ value: '10.50', currency: 'EUR' })).toBe(1050n);
    expect(fromCheckoutMinorUnits(1050, 'EUR')).toEqual({ value: '10.50', currency: 'EUR' });
    expect(fromCheckoutMinorUnits(1000, 'JPY')).toEqual({ value: '1000', currency: 'JPY' });
  });

  it('Mollie and the sandbox take every valid amount', () => {
    for (const provider of ['sandbox', 'mollie'] as const) {
      expect(pspAmountProblem(provider, { value: '10.005', currency: 'KWD' }, 'payment')).toBeUndefined();
      expect(pspAmountProblem(provider, { value: '0.01', currency: 'EUR' }, 'payment')).toBeUndefined();
    }
  });
});

describe('each line of a session at Stripe', () => {
  it('must be an amount Stripe takes, whatever the lines add up to', () => {
    const kwd = (value: string) => ({ value, currency: 'KWD' });
    expect(pspLinesProblem('stripe', [kwd('1.000'), kwd('1.005')])).toMatch(/^Line 2: .*third decimal/);
    expect(pspLinesProblem('stripe', [kwd('1.000'), kwd('1.010')])).toBeUndefined();
    // Below Stripe's minimum charge is a line's right: only the total must reach it.
    expect(pspLinesProblem('stripe', [{ value: '0.10', currency: 'EUR' }])).toBeUndefined();
    expect(pspLinesProblem('mollie', [kwd('1.005')])).toBeUndefined();
  });
});

describe("amounts read back from a PSP's minor units", () => {
  it("undo each PSP's exponent, in ISO 4217 decimals", () => {
    expect(fromStripeMinorUnits(3750, 'eur')).toEqual({ value: '37.50', currency: 'EUR' });
    expect(fromStripeMinorUnits(50_000, 'isk')).toEqual({ value: '500', currency: 'ISK' });
    expect(fromStripeMinorUnits(1000, 'mga')).toEqual({ value: '1000.00', currency: 'MGA' });
    expect(fromStripeMinorUnits(12_340, 'kwd')).toEqual({ value: '12.340', currency: 'KWD' });
    expect(fromAdyenMinorUnits({ value: 50_000, currency: 'IDR' })).toEqual({
      value: '50000.00',
      currency: 'IDR',
    });
    expect(fromAdyenMinorUnits({ value: 1200, currency: 'CLP' })).toEqual({ value: '12', currency: 'CLP' });
    expect(() => fromAdyenMinorUnits({ value: 1234, currency: 'CLP' })).toThrow(/more decimals/);
  });
});
