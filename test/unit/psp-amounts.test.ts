import { describe, expect, it } from 'vitest';
import { adyen } from '../../functions/adapters/psp/adyen-descriptor.ts';
import { checkoutCom } from '../../functions/adapters/psp/checkout-descriptor.ts';
import { sandbox } from '../../functions/adapters/psp/sandbox/descriptor.ts';
import { amountProblem, fromPspMinorUnits, pspMinorUnits } from '../../functions/domain/psp-rules.ts';

/** The amount rules of the PSPs not yet in a folder of their own (a PSP in its folder tests its own). */
describe('amounts each PSP can take', () => {
  it('Adyen takes no more decimals than its minor units of the currency (IDR and CVE have none)', () => {
    for (const use of ['payment', 'refund'] as const) {
      expect(amountProblem(adyen.amounts, { value: '10.50', currency: 'IDR' }, use)).toMatch(
        /cannot express/,
      );
      expect(amountProblem(adyen.amounts, { value: '10', currency: 'IDR' }, use)).toBeUndefined();
      expect(amountProblem(adyen.amounts, { value: '10.50', currency: 'EUR' }, use)).toBeUndefined();
      expect(amountProblem(adyen.amounts, { value: '10.005', currency: 'KWD' }, use)).toBeUndefined();
    }
    expect(pspMinorUnits(adyen.amounts, { value: '500', currency: 'ISK' })).toBe(50000n);
  });

  it('Checkout.com takes three-decimal amounts only in whole hundredths, and reads its minor units back', () => {
    for (const use of ['payment', 'refund'] as const) {
      expect(amountProblem(checkoutCom.amounts, { value: '10.005', currency: 'KWD' }, use)).toMatch(
        /whole hundredths/,
      );
      expect(amountProblem(checkoutCom.amounts, { value: '10.010', currency: 'KWD' }, use)).toBeUndefined();
      expect(amountProblem(checkoutCom.amounts, { value: '1000', currency: 'JPY' }, use)).toBeUndefined();
    }
    expect(pspMinorUnits(checkoutCom.amounts, { value: '10.50', currency: 'EUR' })).toBe(1050n);
    expect(fromPspMinorUnits(checkoutCom.amounts, 1050, 'EUR')).toEqual({ value: '10.50', currency: 'EUR' });
    expect(fromPspMinorUnits(checkoutCom.amounts, 1000, 'JPY')).toEqual({ value: '1000', currency: 'JPY' });
  });

  it('the sandbox takes every valid amount', () => {
    expect(amountProblem(sandbox.amounts, { value: '10.005', currency: 'KWD' }, 'payment')).toBeUndefined();
    expect(amountProblem(sandbox.amounts, { value: '0.01', currency: 'EUR' }, 'payment')).toBeUndefined();
  });
});

describe("amounts read back from a PSP's minor units", () => {
  it("undo the PSP's exponent, in ISO 4217 decimals", () => {
    expect(fromPspMinorUnits(adyen.amounts, 50_000, 'IDR')).toEqual({ value: '50000.00', currency: 'IDR' });
    expect(fromPspMinorUnits(adyen.amounts, 1200, 'CLP')).toEqual({ value: '12', currency: 'CLP' });
    expect(() => fromPspMinorUnits(adyen.amounts, 1234, 'CLP')).toThrow(/more decimals/);
  });
});
