import { describe, expect, it } from 'vitest';
import {
  type AmountSource,
  amountDue,
  includedTaxMinor,
  lineItemsTotal,
  parseBuyerDecimal,
  rangeProblems,
  totalProblem,
} from '../../functions/domain/amount.ts';
import { amountSourceOf, newPaymentLink } from '../../functions/domain/payment-link.ts';

const eur = (value: string) => ({ value, currency: 'EUR' });

describe('the amount a buyer pays', () => {
  it('is the sum of quantity × unit amount over the lines, exact in minor units', () => {
    expect(
      lineItemsTotal([
        { name: 'a', quantity: 3, unit_amount: eur('0.1') },
        { name: 'b', quantity: 1, unit_amount: eur('0.2') },
      ]),
    ).toEqual(eur('0.50'));
    expect(
      lineItemsTotal([{ name: 'a', quantity: 2, unit_amount: { value: '500', currency: 'JPY' } }]),
    ).toEqual({
      value: '1000',
      currency: 'JPY',
    });
  });

  it('refuses a zero sum and one past 12 integer digits', () => {
    expect(totalProblem(eur('0.00'))).toMatch(/more than zero/);
    expect(totalProblem(eur('1000000000000.00'))).toMatch(/12 integer digits/);
    expect(totalProblem(eur('999999999999.99'))).toBeUndefined();
  });

  it('works out the tax a total includes, rounded half up to minor units', () => {
    expect(includedTaxMinor(12100n, '21')).toBe(2100n);
    expect(includedTaxMinor(4990n, '9')).toBe(412n);
    expect(includedTaxMinor(1000n, '0')).toBe(0n);
    expect(includedTaxMinor(10000n, '5.5')).toBe(521n);
  });

  it('is the same for every adapter: the fixed amount, or the sum the link stored', () => {
    const link = newPaymentLink(
      { account: 'acme', mode: 'test' },
      { line_items: [{ name: 'x', quantity: 4, unit_amount: eur('2.5') }] },
      new Date(),
    );
    expect(amountDue(amountSourceOf(link))).toEqual({ ok: true, amount: eur('10.00') });
    expect(amountSourceOf({ amount: eur('7'), line_items: null })).toEqual({
      type: 'fixed',
      amount: eur('7'),
    });
  });

  it("is the buyer's choice within a range, in the currency's minor units", () => {
    const range: AmountSource = { type: 'range', range: { currency: 'EUR', minimum: '5', maximum: '500' } };
    expect(amountDue(range, { amount: '12,5' })).toEqual({ ok: true, amount: eur('12.50') });
    expect(amountDue(range, { amount: '5' })).toEqual({ ok: true, amount: eur('5.00') });
    expect(amountDue(range, {})).toMatchObject({ ok: false, problem: 'missing' });
    expect(amountDue(range, { amount: '4.99' })).toMatchObject({ ok: false, problem: 'out_of_range' });
    expect(amountDue(range, { amount: '500.01' })).toMatchObject({ ok: false, problem: 'out_of_range' });
    for (const bad of ['12.505', '1e3', '-5', 'abc', '0x10', '10.']) {
      expect(amountDue(range, { amount: bad }), bad).toMatchObject({ ok: false, problem: 'invalid' });
    }
    const yen: AmountSource = { type: 'range', range: { currency: 'JPY', minimum: '100', maximum: '1000' } };
    expect(amountDue(yen, { amount: '150.5' })).toMatchObject({ ok: false, problem: 'invalid' });
    expect(amountDue(yen, { amount: '150' })).toEqual({
      ok: true,
      amount: { value: '150', currency: 'JPY' },
    });
  });
});

describe('an amount the buyer types', () => {
  it.each([
    ['10,50', 'nl', '10.50'],
    ['10.50', 'nl', '10.50'],
    ['10.500', 'nl', '10500'],
    ['1.234,56', 'de', '1234.56'],
    ['1 234,56', 'fr', '1234.56'],
    ['1\u202f234,56', 'fr', '1234.56'],
    ['0,50', 'es', '0.50'],
    ['10,5', 'en', '10.5'],
    ['1,234.5', 'en', '1234.5'],
    [' 25 ', 'en', '25'],
  ])('reads %j in %s as %s', (typed, locale, value) => {
    expect(parseBuyerDecimal(typed, locale)).toBe(value);
  });

  it.each([
    ['10,', 'nl'],
    ['10.', 'en'],
    [',5', 'nl'],
    ['1e3', 'en'],
    ['-5', 'en'],
    ['€10', 'nl'],
    ['1.23.4', 'nl'],
    ['1,2,3', 'en'],
    ['12,34.5', 'en'],
  ])('refuses %j in %s', (typed, locale) => {
    expect(parseBuyerDecimal(typed, locale)).toBeUndefined();
  });

  it("is checked against the range in the page's locale", () => {
    const range: AmountSource = { type: 'range', range: { currency: 'EUR', minimum: '5', maximum: '5000' } };
    expect(amountDue(range, { amount: '1.234,5', locale: 'de' })).toEqual({
      ok: true,
      amount: eur('1234.50'),
    });
    expect(amountDue(range, { amount: '1,234.5', locale: 'en' })).toEqual({
      ok: true,
      amount: eur('1234.50'),
    });
    expect(amountDue(range, { amount: '4,99', locale: 'fr' })).toMatchObject({
      ok: false,
      problem: 'out_of_range',
    });
  });
});

describe("a merchant's amount range", () => {
  it('needs minimum <= suggested <= maximum, each within the currency decimals', () => {
    expect(rangeProblems({ currency: 'EUR', minimum: '5', maximum: '5.00', suggested: '5' })).toEqual([]);
    expect(rangeProblems({ currency: 'EUR', minimum: '5.01', maximum: '5' })).toEqual([
      { field: 'maximum', detail: 'Must not be below minimum.' },
    ]);
    expect(rangeProblems({ currency: 'EUR', minimum: '5', maximum: '50', suggested: '50.01' })).toEqual([
      { field: 'suggested', detail: 'Must be between minimum and maximum.' },
    ]);
    expect(rangeProblems({ currency: 'JPY', minimum: '5', maximum: '50.5' })).toEqual([
      { field: 'maximum', detail: 'JPY has no decimal places.' },
    ]);
  });
});
