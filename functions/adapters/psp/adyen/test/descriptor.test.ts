import { describe, expect, it } from 'vitest';
import { credentialsProblemOf } from '../../../../../test/support/psp-fakes.ts';
import { amountProblem, fromPspMinorUnits, pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { adyen } from '../descriptor.ts';

describe("Adyen's descriptor", () => {
  const test = {
    api_key: 'AQE-key',
    merchant_account: 'AcmeECOM',
    hmac_key: 'AB'.repeat(32),
    environment: 'test',
  };
  const live = {
    ...test,
    environment: 'live',
    live_endpoint_url_prefix: '1797a841fbb37ca7-AcmeCompany',
  };

  it("accepts credentials of the connection's mode and refuses those of the other mode, or none", () => {
    expect(credentialsProblemOf(adyen, test, 'test')).toBeUndefined();
    expect(credentialsProblemOf(adyen, live, 'live')).toBeUndefined();
    expect(credentialsProblemOf(adyen, test, 'live')).toMatch(/live/);
    expect(credentialsProblemOf(adyen, live, 'test')).toMatch(/test/);
    expect(credentialsProblemOf(adyen, {}, 'test')).toBeDefined();
  });

  it('takes no more decimals than its minor units of the currency (IDR and CVE have none)', () => {
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

  it('reads its minor units back, undoing its exponent, in ISO 4217 decimals', () => {
    expect(fromPspMinorUnits(adyen.amounts, 50_000, 'IDR')).toEqual({ value: '50000.00', currency: 'IDR' });
    expect(fromPspMinorUnits(adyen.amounts, 1200, 'CLP')).toEqual({ value: '12', currency: 'CLP' });
    expect(() => fromPspMinorUnits(adyen.amounts, 1234, 'CLP')).toThrow(/more decimals/);
  });
});
