import { describe, expect, it } from 'vitest';
import { credentialsProblemOf } from '../../../../../test/support/psp-fakes.ts';
import { amountProblem } from '../../../../domain/psp-rules.ts';
import { mollie } from '../descriptor.ts';

describe("Mollie's descriptor", () => {
  const test = { api_key: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' };
  const live = { api_key: 'live_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' };

  it("accepts an API key of the connection's mode and refuses one of the other mode, or none", () => {
    expect(credentialsProblemOf(mollie, test, 'test')).toBeUndefined();
    expect(credentialsProblemOf(mollie, live, 'live')).toBeUndefined();
    expect(credentialsProblemOf(mollie, test, 'live')).toMatch(/live/);
    expect(credentialsProblemOf(mollie, live, 'test')).toMatch(/test/);
    expect(credentialsProblemOf(mollie, {}, 'test')).toBeDefined();
  });

  it('takes every valid amount', () => {
    expect(amountProblem(mollie.amounts, { value: '10.005', currency: 'KWD' }, 'payment')).toBeUndefined();
    expect(amountProblem(mollie.amounts, { value: '0.01', currency: 'EUR' }, 'payment')).toBeUndefined();
  });
});
