import { describe, expect, it } from 'vitest';
import {
  amountValueProblem,
  fractionDigitsProblem,
  isPayableCurrency,
  minorUnits,
  toMinorUnits,
} from '../../functions/domain/money.ts';

describe('currencies from the ISO 4217 data', () => {
  it('knows the minor units of 0-, 2- and 3-decimal currencies', () => {
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('EUR')).toBe(2);
    expect(minorUnits('KWD')).toBe(3);
  });

  it('accepts active currencies and rejects lower case, unknown and non-money codes', () => {
    expect(isPayableCurrency('USD')).toBe(true);
    expect(isPayableCurrency('XOF')).toBe(true);
    for (const code of ['eur', 'EURO', 'ZZZ', '', 'XAU', 'XTS', 'XXX']) {
      expect(isPayableCurrency(code), code).toBe(false);
    }
  });
});

describe('amount values', () => {
  it.each(['10', '10.5', '10.50', '0.01', '999999999999.99'])('accepts %s', (value) => {
    expect(amountValueProblem(value)).toBeUndefined();
  });

  it.each(['1e3', '-1', '0.00', '0', ' 10', '10 ', '010', '10.', '.5', '+1', '1,00', '1000000000000'])(
    'rejects %j',
    (value) => {
      expect(amountValueProblem(value)).toBeDefined();
    },
  );

  it('limits the decimals to the currency minor units', () => {
    expect(fractionDigitsProblem('10.505', 'EUR')).toMatch(/at most 2 decimal places/);
    expect(fractionDigitsProblem('10.50', 'EUR')).toBeUndefined();
    expect(fractionDigitsProblem('10.5', 'JPY')).toMatch(/no decimal places/);
    expect(fractionDigitsProblem('10', 'JPY')).toBeUndefined();
    expect(fractionDigitsProblem('1.234', 'KWD')).toBeUndefined();
    expect(fractionDigitsProblem('1.2345', 'KWD')).toMatch(/at most 3/);
  });
});

describe('minor-unit conversion for PSPs', () => {
  it('takes a PSP exponent that differs from ISO 4217, and never rounds', () => {
    expect(toMinorUnits({ value: '500', currency: 'ISK' }, 2)).toBe(50000n);
    expect(toMinorUnits({ value: '1000', currency: 'MGA' }, 0)).toBe(1000n);
    expect(toMinorUnits({ value: '10.50', currency: 'EUR' }, 1)).toBe(105n);
    expect(() => toMinorUnits({ value: '10.5', currency: 'MGA' }, 0)).toThrow(/cannot be expressed/);
  });

  it.each([
    ['10.5', 'EUR', 1050n],
    ['10', 'EUR', 1000n],
    ['0.01', 'EUR', 1n],
    ['500', 'JPY', 500n],
    ['1.5', 'KWD', 1500n],
    ['1.234', 'KWD', 1234n],
    ['999999999999.99', 'EUR', 99999999999999n],
  ])('%s %s is %d', (value, currency, minor) => {
    expect(toMinorUnits({ value, currency })).toBe(minor);
  });
});
