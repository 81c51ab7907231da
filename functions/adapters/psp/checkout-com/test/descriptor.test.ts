import { describe, expect, it } from 'vitest';
import { credentialsProblemOf } from '../../../../../test/support/psp-fakes.ts';
import { amountProblem, fromPspMinorUnits, pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { checkoutCom } from '../descriptor.ts';

describe("Checkout.com's descriptor", () => {
  const test = {
    secret_key: 'sk_sbox_m73dzbpy7cf3gfd46xr4yj5xo4e',
    processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
    signature_key: 'signature-key',
  };
  const live = { ...test, secret_key: 'sk_m73dzbpy7cf3gfd46xr4yj5xo4e' };

  it("accepts a secret key of the connection's mode and refuses one of the other mode, or none", () => {
    expect(credentialsProblemOf(checkoutCom, test, 'test')).toBeUndefined();
    expect(credentialsProblemOf(checkoutCom, live, 'live')).toBeUndefined();
    expect(credentialsProblemOf(checkoutCom, test, 'live')).toMatch(/live/);
    expect(credentialsProblemOf(checkoutCom, live, 'test')).toMatch(/test/);
    expect(credentialsProblemOf(checkoutCom, {}, 'test')).toBeDefined();
  });

  it('takes three-decimal amounts only in whole hundredths, and reads its minor units back', () => {
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
});
