import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { iso4217Module, payableCurrencies } from '../../bin/iso-4217.ts';
import { ISO_4217_MINOR_UNITS } from '../../functions/domain/iso-4217.ts';
import { MAX_MINOR_UNITS } from '../../functions/domain/money.ts';

describe('the generated ISO 4217 table', () => {
  it('holds exactly the payable currencies of the currency-codes data (run `npm run currencies` if not)', () => {
    expect(ISO_4217_MINOR_UNITS).toEqual(payableCurrencies());
  });

  it('is the file the generator writes, byte for byte', () => {
    const file = join(import.meta.dirname, '..', '..', 'functions', 'domain', 'iso-4217.ts');
    expect(readFileSync(file, 'utf8')).toBe(iso4217Module());
  });

  it('excludes the ISO codes that are not money: metals, units of account, bond units, testing, none', () => {
    const notMoney = [
      'XAU',
      'XAG',
      'XPD',
      'XPT',
      'XDR',
      'XSU',
      'XUA',
      'XBA',
      'XBB',
      'XBC',
      'XBD',
      'XTS',
      'XXX',
    ];
    expect(notMoney.filter((code) => Object.hasOwn(ISO_4217_MINOR_UNITS, code))).toEqual([]);
    expect(ISO_4217_MINOR_UNITS).toMatchObject({ EUR: 2, JPY: 0, KWD: 3 });
  });

  it("has no currency with more minor units than MAX_MINOR_UNITS, which bounds an amount value's length", () => {
    expect(Math.max(...Object.values(ISO_4217_MINOR_UNITS))).toBe(MAX_MINOR_UNITS);
  });
});
