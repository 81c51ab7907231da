import { describe, expect, it } from 'vitest';
import {
  type AmountRules,
  amountProblem,
  linesProblem,
  pspMinorUnits,
} from '../../functions/domain/psp-rules.ts';

/** The evaluators of the amount rules a descriptor states, on rules made up for each case. */
describe('amount rules, whatever the PSP', () => {
  it('take every amount a link can have when a PSP states none', () => {
    const none: AmountRules = { psp: 'Plain' };
    expect(amountProblem(none, { value: '0.001', currency: 'KWD' }, 'payment')).toBeUndefined();
    expect(linesProblem(none, [{ value: '1.005', currency: 'KWD' }])).toBeUndefined();
  });

  it('refuse a currency outside a PSP’s list, naming the PSP, and more decimals than its exponent', () => {
    const rules: AmountRules = { psp: 'Listed', currencies: ['EUR', 'HUF'], exponents: { HUF: 0 } };
    expect(amountProblem(rules, { value: '1.00', currency: 'USD' }, 'refund')).toBe(
      'Listed does not take USD.',
    );
    expect(amountProblem(rules, { value: '10.50', currency: 'HUF' }, 'payment')).toMatch(
      /^Listed cannot express 10.50 HUF \(it takes no decimals/,
    );
    expect(amountProblem(rules, { value: '10.00', currency: 'HUF' }, 'payment')).toBeUndefined();
    expect(pspMinorUnits(rules, { value: '10.00', currency: 'HUF' })).toBe(10n);
  });

  it('hold a payment, never a refund, to the minimum of its currency and the maximum of it or the default', () => {
    const rules: AmountRules = {
      psp: 'Bounded',
      minimums: { EUR: 100 },
      maximums: { default: 1000, JPY: 50 },
    };
    expect(amountProblem(rules, { value: '0.99', currency: 'EUR' }, 'payment')).toMatch(/below Bounded/);
    expect(amountProblem(rules, { value: '0.99', currency: 'EUR' }, 'refund')).toBeUndefined();
    expect(amountProblem(rules, { value: '10.01', currency: 'EUR' }, 'payment')).toMatch(/above Bounded/);
    expect(amountProblem(rules, { value: '51', currency: 'JPY' }, 'payment')).toMatch(/above/);
    expect(amountProblem(rules, { value: '0.01', currency: 'USD' }, 'payment')).toBeUndefined();
  });

  it('check each line only for a PSP that is sent each line', () => {
    const kwd = { value: '1.005', currency: 'KWD' };
    const rules: AmountRules = { psp: 'Lines', wholeHundredths: ['KWD'] };
    expect(linesProblem(rules, [kwd])).toBeUndefined();
    expect(linesProblem({ ...rules, checksEachLine: true }, [{ ...kwd, value: '1.010' }, kwd])).toMatch(
      /^Line 2: Lines takes KWD amounts only in whole hundredths/,
    );
  });
});
