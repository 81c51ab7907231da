import { describe, expect, it } from 'vitest';
import { checkoutCom } from '../../functions/adapters/psp/checkout-descriptor.ts';
import { sandbox } from '../../functions/adapters/psp/sandbox/descriptor.ts';
import { amountProblem, fromPspMinorUnits, pspMinorUnits } from '../../functions/domain/psp-rules.ts';

/** The amount rules of the PSPs not yet in a folder of their own (a PSP in its folder tests its own). */
describe('amounts each PSP can take', () => {
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
