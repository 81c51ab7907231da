import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AmountRange,
  type AmountSource,
  amountDue,
  includedTaxMinor,
  lineItemsTotal,
  parseBuyerDecimal,
  rangeProblems,
  totalProblem,
} from '../../functions/domain/amount.ts';
import { ISO_4217_MINOR_UNITS } from '../../functions/domain/iso-4217.ts';
import { PAGE_LANGUAGES } from '../../functions/domain/locale.ts';
import { fromMinorUnits, toMinorUnits } from '../../functions/domain/money.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';

/** The amount source of a link whose buyer chooses the amount within `amount_range`. */
const ranged = (amount_range: AmountRange) =>
  ({ amount_kind: 'range', amount: null, line_items: null, amount_range }) satisfies AmountSource;

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
    expect(link.amount_kind).toBe('line_items');
    expect(amountDue(link)).toEqual({ ok: true, amount: eur('10.00') });
    const fixed = newPaymentLink({ account: 'acme', mode: 'test' }, { amount: eur('7') }, new Date());
    expect(fixed).toMatchObject({
      amount_kind: 'fixed',
      amount: eur('7'),
      line_items: null,
      amount_range: null,
    });
    expect(amountDue(fixed)).toEqual({ ok: true, amount: eur('7') });
  });

  it("is the buyer's choice within a range, in the currency's minor units", () => {
    const range = ranged({ currency: 'EUR', minimum: '5', maximum: '500' });
    expect(amountDue(range, { amount: '12,5' })).toEqual({ ok: true, amount: eur('12.50') });
    expect(amountDue(range, { amount: '5' })).toEqual({ ok: true, amount: eur('5.00') });
    expect(amountDue(range, {})).toMatchObject({ ok: false, problem: 'missing' });
    expect(amountDue(range, { amount: '4.99' })).toMatchObject({ ok: false, problem: 'out_of_range' });
    expect(amountDue(range, { amount: '500.01' })).toMatchObject({ ok: false, problem: 'out_of_range' });
    for (const bad of ['12.505', '1e3', '-5', 'abc', '0x10', '10.']) {
      expect(amountDue(range, { amount: bad }), bad).toMatchObject({ ok: false, problem: 'invalid' });
    }
    const yen = ranged({ currency: 'JPY', minimum: '100', maximum: '1000' });
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
    ['1\u00a0234,56', 'fr', '1234.56'],
    ['1 234.50', 'fr', '1234.50'],
    ['1.234', 'es', '1234'],
    ['0,50', 'es', '0.50'],
    ['10,5', 'en', '10.5'],
    ['1,234.5', 'en', '1234.5'],
    ['0012,5', 'nl', '12.5'],
    [' 25 ', 'en', '25'],
    // Regional tags group as their region does: lakh in India, an apostrophe in Switzerland.
    ['1,23,456.50', 'en-IN', '123456.50'],
    ["1'234.50", 'de-CH', '1234.50'],
    ['1\u2019234.50', 'de-CH', '1234.50'],
  ])('reads %j in %s as %s', (typed, locale, value) => {
    expect(parseBuyerDecimal(typed, locale, 2)).toEqual({ ok: true, value });
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
    // Only the locale's own grouping separator groups.
    ['1.234,50', 'fr'],
    ['1 234,50', 'nl'],
    ['1 234.50', 'en'],
    ['1.234.567', 'en'],
    // A first group of 0 is no thousands group, and three decimals are too many for EUR.
    ['0.500', 'nl'],
    ['0,750', 'en'],
    ['0,500,000', 'en'],
  ])('refuses %j in %s for a currency with two decimals', (typed, locale) => {
    expect(parseBuyerDecimal(typed, locale, 2)).toEqual({ ok: false, problem: 'invalid' });
  });

  it('reads a leading 0 as the whole part, never as a thousands group', () => {
    expect(parseBuyerDecimal('0.500', 'nl', 3)).toEqual({ ok: true, value: '0.500' });
    expect(parseBuyerDecimal('0,750', 'en', 3)).toEqual({ ok: true, value: '0.750' });
  });

  it('gives both readings of one separator before three digits when the currency has three decimals', () => {
    const twoWays = { ok: false, problem: 'ambiguous', readings: { decimal: '12.500', thousands: '12500' } };
    expect(parseBuyerDecimal('12.500', 'fr', 3)).toEqual(twoWays);
    expect(parseBuyerDecimal('12.500', 'nl', 3)).toEqual(twoWays);
    expect(parseBuyerDecimal('12,500', 'en', 3)).toEqual(twoWays);
    // The page's own decimal separator is its decimal: our page writes 12.5 TND that way (bounds, suggestion).
    expect(parseBuyerDecimal('12.500', 'en', 3)).toEqual({ ok: true, value: '12.500' });
    expect(parseBuyerDecimal('12,500', 'fr', 3)).toEqual({ ok: true, value: '12.500' });
  });

  it("is checked against the range in the page's locale", () => {
    const range = ranged({ currency: 'EUR', minimum: '5', maximum: '5000' });
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

describe('a buyer-chosen amount is never read 1,000 times off', () => {
  const euros = ranged({ currency: 'EUR', minimum: '0.01', maximum: '5000' });
  const dinars = ranged({ currency: 'TND', minimum: '5', maximum: '50000' });

  it.each([
    ['0.500', 'nl'],
    ['0,750', 'en'],
    ['0 500', 'fr'],
  ])('asks again for %j in %s rather than reading a leading 0 as thousands', (typed, locale) => {
    expect(amountDue(euros, { amount: typed, locale })).toEqual({
      ok: false,
      range: euros.amount_range,
      problem: 'invalid',
    });
  });

  it('reads a leading 0 as the whole part when the currency has three decimals', () => {
    const due = (amount: string, locale: string) => amountDue(dinars, { amount, locale });
    const cheap = ranged({ currency: 'TND', minimum: '0.1', maximum: '5' });
    expect(amountDue(cheap, { amount: '0.500', locale: 'nl' })).toEqual({
      ok: true,
      amount: { value: '0.500', currency: 'TND' },
    });
    expect(due('5,000', 'fr')).toEqual({ ok: true, amount: { value: '5.000', currency: 'TND' } });
  });

  it.each([
    ['12.500', 'fr'],
    ['12.500', 'nl'],
    ['12.500', 'de'],
    ['12.500', 'es'],
    ['12,500', 'en'],
  ])('asks again for %j TND in %s: 12.5 or 12500 dinars', (typed, locale) => {
    expect(amountDue(dinars, { amount: typed, locale })).toEqual({
      ok: false,
      range: dinars.amount_range,
      problem: 'ambiguous',
    });
  });

  it('asks again even when only one reading lies within the bounds', () => {
    const upTo100 = ranged({ currency: 'KWD', minimum: '1', maximum: '100' });
    expect(amountDue(upTo100, { amount: '12.500', locale: 'fr' })).toMatchObject({ problem: 'ambiguous' });
  });

  it("reads the page's own decimal separator as the decimal, as the page writes amounts", () => {
    expect(amountDue(dinars, { amount: '12.500', locale: 'en' })).toEqual({
      ok: true,
      amount: { value: '12.500', currency: 'TND' },
    });
    expect(amountDue(dinars, { amount: '12,500', locale: 'fr' })).toEqual({
      ok: true,
      amount: { value: '12.500', currency: 'TND' },
    });
    expect(amountDue(dinars, { amount: '12 500', locale: 'fr' })).toEqual({
      ok: true,
      amount: { value: '12500.000', currency: 'TND' },
    });
  });

  it("groups only with the locale's own separator", () => {
    expect(amountDue(euros, { amount: '1 234,50', locale: 'fr' })).toEqual({
      ok: true,
      amount: eur('1234.50'),
    });
    expect(amountDue(euros, { amount: '1.234,50', locale: 'fr' })).toMatchObject({ problem: 'invalid' });
    expect(amountDue(euros, { amount: '12.500', locale: 'fr' })).toMatchObject({ problem: 'invalid' });
    expect(amountDue(euros, { amount: '1 234,50', locale: 'nl' })).toMatchObject({ problem: 'invalid' });
    expect(amountDue(euros, { amount: '1.234', locale: 'en' })).toMatchObject({ problem: 'invalid' });
    expect(amountDue(euros, { amount: '1.234', locale: 'nl' })).toEqual({ ok: true, amount: eur('1234.00') });
  });
});

/** A real currency of each count of minor units the checkout meets (ISO 4217 has no payable one with 1). */
const CURRENCIES = [0, 2, 3].map((digits) => {
  const found = Object.entries(ISO_4217_MINOR_UNITS).filter(([, units]) => units === digits);
  return { digits, currencies: found.map(([code]) => code) };
});
const currencyArbitrary = fc.oneof(
  ...CURRENCIES.map(({ digits, currencies }) =>
    fc.constantFrom(...currencies).map((currency) => ({ currency, digits })),
  ),
);
/** Any amount of at most 12 integer digits, in minor units: what a range may hold. */
const anyRange = (currency: string, digits: number) =>
  ranged({ currency, minimum: '0', maximum: fromMinorUnits(10n ** BigInt(12 + digits) - 1n, currency) });

describe('every amount as Intl writes it', () => {
  // The page's languages, and regional tags that group otherwise (lakh, apostrophe, no-break space).
  const locales = [...PAGE_LANGUAGES, 'nl-BE', 'de-AT', 'de-CH', 'fr-CA', 'fr-CH', 'es-MX', 'en-IN', 'en-ZA'];

  it('reads back as itself, with or without grouping, in every locale and currency', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...locales),
        currencyArbitrary,
        fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }),
        fc.constantFrom(false, 'auto', 'always'),
        (locale, { currency, digits }, scaled, useGrouping) => {
          const minor = scaled % 10n ** BigInt(12 + digits);
          const value = fromMinorUnits(minor, currency);
          const written = new Intl.NumberFormat(locale, {
            minimumFractionDigits: digits,
            maximumFractionDigits: digits,
            useGrouping: useGrouping as Intl.NumberFormatOptions['useGrouping'],
          }).format(value as Intl.StringNumericLiteral);
          expect(
            amountDue(anyRange(currency, digits), { amount: written, locale }),
            `${written} in ${locale}`,
          ).toEqual({
            ok: true,
            amount: { value, currency },
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/**
 * The ways people anywhere write numbers, as (decimal, grouping) pairs: the readings a buyer may have meant.
 * The page's own decimal separator is never grouping on its page (it writes its amounts that way).
 */
const CONVENTIONS = [
  { decimal: '.', group: ',' },
  { decimal: ',', group: '.' },
  { decimal: ',', group: ' ' },
  { decimal: '.', group: ' ' },
];

/** The amount, in 10^-digits units, that `text` is under one convention, strictly (groups of three). */
function strictReading(
  text: string,
  convention: (typeof CONVENTIONS)[number],
  digits: number,
): bigint | undefined {
  const [whole = '', fraction, ...more] = text.split(convention.decimal);
  if (more.length > 0) return undefined;
  if (fraction !== undefined && !(/^[0-9]+$/.test(fraction) && fraction.length <= digits)) return undefined;
  const [first = '', ...groups] = whole.split(convention.group);
  const plain = groups.length === 0 && /^[0-9]+$/.test(first);
  const grouped = /^[1-9][0-9]{0,2}$/.test(first) && groups.every((group) => /^[0-9]{3}$/.test(group));
  if (!plain && !grouped) return undefined;
  const integer = whole.replaceAll(convention.group, '');
  return BigInt(integer + (fraction ?? '').padEnd(digits, '0'));
}

/** Every kind of space as the one a keyboard types. */
const spacesAsSpace = (text: string) => text.replace(/[\s\u00a0\u202f]/g, ' ');

/** The separator Intl writes in `locale`, any space as U+0020. */
const separatorOf = (locale: string, type: 'decimal' | 'group') =>
  spacesAsSpace(
    new Intl.NumberFormat(locale).formatToParts(11111.5).find((part) => part.type === type)?.value ?? '',
  );

/** Every amount `text` may mean to someone, on a page in `locale`. */
function plausibleReadings(text: string, locale: string, digits: number): Set<bigint> {
  const pageDecimal = separatorOf(locale, 'decimal');
  const readings = CONVENTIONS.filter((convention) => convention.group !== pageDecimal).map((convention) =>
    strictReading(spacesAsSpace(text.trim()), convention, digits),
  );
  return new Set(readings.filter((reading) => reading !== undefined));
}

describe('any string of digits and separators', () => {
  const separator = fc.constantFrom('.', ',', ' ', '\u00a0', '\u202f');
  const digitRun = fc.stringMatching(/^[0-9]{1,4}$/);
  const anyChars = fc
    .array(
      fc.oneof(
        { arbitrary: fc.constantFrom(...'0123456789'), weight: 5 },
        { arbitrary: separator, weight: 2 },
      ),
      {
        minLength: 1,
        maxLength: 12,
      },
    )
    .map((chars) => chars.join(''));
  // Digit runs between separators: the shapes (`12.500`, `0,750`, `1 234,5`) where readings part ways.
  const numberLike = fc
    .tuple(digitRun, fc.array(fc.tuple(separator, digitRun), { maxLength: 3 }))
    .map(([head, rest]) => head + rest.map(([mark, run]) => mark + run).join(''));

  it('reads as one amount only when no one could mean another, else is refused or asked again', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PAGE_LANGUAGES),
        currencyArbitrary,
        fc.oneof(anyChars, numberLike),
        (locale, { currency, digits }, typed) => {
          const due = amountDue(anyRange(currency, digits), { amount: typed, locale });
          const readings = plausibleReadings(typed, locale, digits);
          const label = `${JSON.stringify(typed)} in ${locale}, ${currency}`;
          if (due.ok) {
            expect([...readings], label).toEqual([toMinorUnits(due.amount)]);
            // Once the locale's own grouping separators are taken out, at most the decimal one is left.
            const ungrouped = spacesAsSpace(typed.trim()).replaceAll(separatorOf(locale, 'group'), '');
            expect(ungrouped.replace(/[0-9]/g, '').length, label).toBeLessThanOrEqual(1);
          } else if (due.problem === 'ambiguous') {
            expect(readings.size, label).toBe(2);
          }
          if (readings.size > 1) expect(due, label).toMatchObject({ ok: false, problem: 'ambiguous' });
        },
      ),
      { numRuns: 5000 },
    );
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
