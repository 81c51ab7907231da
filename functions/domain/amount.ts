import {
  type Amount,
  fractionDigitsProblem,
  fromMinorUnits,
  MAX_INTEGER_DIGITS,
  minorUnits,
  toMinorUnits,
} from './money.ts';

/**
 * Where a link's amount comes from (docs/api.md#amounts): one link type, three sources. `fixed` is the `amount` the
 * merchant sent; `line_items` is their sum, worked out here; `range` lets the buyer choose within bounds on our
 * page. `amountDue` gives the amount every PSP adapter charges, so none of them works it out on its own.
 */

/** One line of an order. `unit_amount` includes tax; `tax_rate` (a percentage such as "21") says how much. */
export interface LineItem {
  name: string;
  quantity: number;
  unit_amount: Amount;
  tax_rate?: string | null | undefined;
  /**
   * The buyer picks the quantity on our page, within these bounds, starting from `quantity`
   * (docs/checkout.md#quantities); absent: the quantity is fixed.
   */
  adjustable_quantity?: AdjustableQuantity | null | undefined;
}

export interface AdjustableQuantity {
  enabled: boolean;
  minimum: number;
  maximum: number;
}

export interface AmountRange {
  currency: string;
  minimum: string;
  maximum: string;
  suggested?: string | null | undefined;
}

/**
 * A link's amount fields, discriminated by `amount_kind` (the domain's only: the stored item and the API resource
 * read it from which fields are set, functions/adapters/dynamodb/link-mapper.ts). Unused fields are null.
 */
export type AmountSource =
  | { amount_kind: 'fixed'; amount: Amount; line_items: null; amount_range: null }
  | { amount_kind: 'line_items'; amount: Amount; line_items: LineItem[]; amount_range: null }
  | { amount_kind: 'range'; amount: null; line_items: null; amount_range: AmountRange };

export const MAX_LINE_ITEMS = 100;
export const MAX_LINE_ITEM_NAME_LENGTH = 255;
export const MAX_QUANTITY = 10_000;

/** A line's total in minor units: quantity × unit amount. */
export const lineTotalMinor = (item: LineItem): bigint =>
  BigInt(item.quantity) * toMinorUnits(item.unit_amount);

/** The sum of the lines, in their (common) currency, as a decimal string in the currency's minor units. */
export function lineItemsTotal(items: readonly LineItem[]): Amount {
  const currency = items[0]?.unit_amount.currency ?? 'EUR';
  const minor = items.reduce((sum, item) => sum + lineTotalMinor(item), 0n);
  return { value: fromMinorUnits(minor, currency), currency };
}

/**
 * The lines a PSP is sent with a session at `amount`: the link's lines, which must add up to it (checkout charges
 * a lines link their sum, `amountDue`), or none for a link without lines. Lines that do not add up are a bug that
 * must not reach a PSP, which would charge their sum or refuse.
 */
export function linesCharging(
  items: readonly LineItem[] | null | undefined,
  amount: Amount,
): readonly LineItem[] | undefined {
  if (!items?.length) return undefined;
  const total = lineItemsTotal(items);
  if (total.currency !== amount.currency || toMinorUnits(total) !== toMinorUnits(amount)) {
    throw new Error(
      `Line items add up to ${total.value} ${total.currency}, not ${amount.value} ${amount.currency}.`,
    );
  }
  return items;
}

/** A link whose quantities the buyer picks (a line with `adjustable_quantity.enabled`). */
export const hasAdjustableLines = (link: { line_items: readonly LineItem[] | null | undefined }): boolean =>
  link.line_items?.some((item) => item.adjustable_quantity?.enabled === true) ?? false;

/** A link whose total the buyer sets (a range, or quantities): a total no PSP takes is theirs to change. */
export const buyerSetsAmount = (link: {
  amount_kind: AmountSource['amount_kind'];
  line_items: readonly LineItem[] | null | undefined;
}): boolean => link.amount_kind === 'range' || hasAdjustableLines(link);

/** Why a sum cannot be a link's amount (zero, or more than the 12 integer digits every amount allows). */
export function totalProblem(total: Amount): string | undefined {
  if (toMinorUnits(total) <= 0n) return 'The line items must add up to more than zero.';
  if ((total.value.split('.')[0] ?? '').length > MAX_INTEGER_DIGITS) {
    return `The line items add up to more than ${MAX_INTEGER_DIGITS} integer digits.`;
  }
  return undefined;
}

/**
 * The tax included in a line's total at `rate` percent: total × rate / (100 + rate), rounded half up to the
 * currency's minor units (the formula of the PSPs that take a line's included tax: docs/checkout.md).
 */
export function includedTaxMinor(totalMinor: bigint, rate: string): bigint {
  const [whole = '0', fraction = ''] = rate.split('.');
  const rateHundredths = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
  const numerator = totalMinor * rateHundredths * 2n;
  const denominator = (10_000n + rateHundredths) * 2n;
  return (numerator + denominator / 2n) / denominator;
}

/** The buyer's answer on our page, for a `range` link: the amount they typed, and the locale of the page. */
export interface BuyerInput {
  amount?: string | undefined;
  /** The page's locale (functions/domain/locale.ts): which of `,` and `.` is the decimal separator. */
  locale?: string | undefined;
}

export type AmountDue =
  | { ok: true; amount: Amount }
  /**
   * `range` link and no (valid) choice yet: the page asks, with `problem` when the buyer's answer was refused
   * (`ambiguous`: it reads as two amounts, `parseBuyerDecimal`).
   */
  | { ok: false; range: AmountRange; problem: 'missing' | 'invalid' | 'ambiguous' | 'out_of_range' };

/** What a typed amount reads as: one plain decimal string, nothing, or two amounts we must not choose between. */
export type BuyerDecimal =
  | { ok: true; value: string }
  | { ok: false; problem: 'invalid' }
  /** `12.500` for a currency with three decimals: 12.5 with a decimal point, or 12500 with a thousands separator. */
  | { ok: false; problem: 'ambiguous'; readings: { decimal: string; thousands: string } };

const NOT_A_NUMBER: BuyerDecimal = { ok: false, problem: 'invalid' };

// Every space a keyboard or Intl writes (French groups with U+202F in Intl, with U+00A0 or U+0020 by hand) is one
// grouping character to us, and so are the straight and typographic apostrophes (Swiss German).
const SPACES = /[\s\u00a0\u202f]/g;
const APOSTROPHES = /[\u2019']/g;
const normalized = (text: string) => text.replace(SPACES, ' ').replace(APOSTROPHES, "'");

interface Separators {
  decimal: string;
  group: string;
  /** The integer as the locale groups it, grouping included (`12,34,567` in en-IN). */
  grouped: Intl.NumberFormat;
}
const separators = new Map<string, Separators>();

/** The locale's decimal and grouping separators, as `Intl` writes numbers in it (`nl`: `,` and `.`). */
function separatorsOf(locale: string): Separators {
  let known = separators.get(locale);
  if (!known) {
    const parts = new Intl.NumberFormat(locale).formatToParts(11111.1);
    known = {
      decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.',
      group: normalized(parts.find((part) => part.type === 'group')?.value ?? ','),
      grouped: new Intl.NumberFormat(locale, { useGrouping: 'always', maximumFractionDigits: 0 }),
    };
    separators.set(locale, known);
  }
  return known;
}

/**
 * Whether `whole` is an integer grouped with the locale's own separator: by three (`1.234.567` in `nl`), or as
 * `Intl` groups it (lakh in `en-IN`). A first group of `0` is never grouping: `0.500` is not five hundred.
 */
function groupedInLocale(whole: string, { group, grouped }: Separators): boolean {
  if (!whole.includes(group)) return false;
  const [first = '', ...rest] = whole.split(group);
  if (/^[1-9][0-9]{0,2}$/.test(first) && rest.every((part) => /^[0-9]{3}$/.test(part))) return true;
  const digits = whole.replaceAll(group, '');
  return /^[1-9][0-9]*$/.test(digits) && normalized(grouped.format(BigInt(digits))) === whole;
}

/**
 * One `,` or `.` that is not the locale's decimal, after one to three digits (not starting with `0`) and before
 * exactly three: a decimal in some countries and thousands in others (see `parseBuyerDecimal`). Undefined when
 * `text` is not of that shape.
 */
function twoWayReading(text: string, { decimal, group }: Separators, fractionDigits: number) {
  const twoWays = /^([1-9][0-9]{0,2})([.,])([0-9]{3})$/.exec(text);
  if (!twoWays || twoWays[2] === decimal) return undefined;
  const [, head = '', separator, tail = ''] = twoWays;
  const thousands = `${head}${tail}`;
  if (fractionDigits >= tail.length) {
    return { ok: false, problem: 'ambiguous', readings: { decimal: `${head}.${tail}`, thousands } } as const;
  }
  return separator === group ? ({ ok: true, value: thousands } as const) : NOT_A_NUMBER;
}

/**
 * A number the buyer typed, read as people write it in their locale (docs/checkout.md#reading-typed-amounts), as a
 * plain decimal string with at most `fractionDigits` decimals (`"1.234,5"` in `nl` → `"1234.5"`):
 * - the locale's decimal separator (`,` in nl, de, fr, es; `.` in en) marks the fraction, whatever follows it:
 *   it is how our page writes amounts (the field's suggestion, the bounds), so `12.500` in `en` is 12.5;
 * - the locale's own grouping separator (`.` in nl, de, es; `,` in en; a space in fr) is the only one read as
 *   grouping, and never after a first group of `0`;
 * - one `,` or `.` that is not the locale's decimal, after one to three digits (not starting with `0`) and
 *   before exactly three, is a decimal in some countries and thousands in others: when both readings fit the
 *   currency (three decimals: `12.500` TND in `fr` or `nl`, `12,500` in `en`) the answer is `ambiguous`, never a
 *   guess; otherwise only thousands fit, taken only with the locale's own grouping separator (`10.500` EUR in
 *   `nl`);
 * - any other single `,` or `.` that is not the locale's decimal is read as the decimal (`10.50` in `nl` is ten
 *   and a half, `0.500` one half);
 * - nothing else: no sign, no exponent, no currency symbol, no empty fraction (`10,`).
 */
export function parseBuyerDecimal(input: string, locale = 'en', fractionDigits = 2): BuyerDecimal {
  const text = normalized(input.trim());
  if (!/^[0-9.,' ]+$/.test(text)) return NOT_A_NUMBER;
  const own = separatorsOf(locale);
  const { decimal, group } = own;
  const other = decimal === ',' ? '.' : ',';

  const twoWays = twoWayReading(text, own, fractionDigits);
  if (twoWays) return twoWays;

  let mark: string | undefined;
  if (text.includes(decimal)) mark = decimal;
  else if (text.split(other).length === 2) mark = other;
  const at = mark === undefined ? -1 : text.lastIndexOf(mark);
  const whole = at < 0 ? text : text.slice(0, at);
  const fraction = at < 0 ? '' : text.slice(at + 1);
  if (at >= 0 && !(/^[0-9]+$/.test(fraction) && fraction.length <= fractionDigits)) return NOT_A_NUMBER;
  if (!/^[0-9]+$/.test(whole) && !groupedInLocale(whole, own)) return NOT_A_NUMBER;
  const digits = whole.replaceAll(group, '').replace(/^0+(?=[0-9])/, '');
  return { ok: true, value: at < 0 ? digits : `${digits}.${fraction}` };
}

/**
 * What the buyer pays now: the fixed amount, the sum of the lines, or, for a range, the buyer's choice once it is a
 * decimal within the currency's minor units and within the bounds. Pure: the same answer for every adapter.
 */
export function amountDue(source: AmountSource, input: BuyerInput = {}): AmountDue {
  switch (source.amount_kind) {
    case 'fixed':
    case 'line_items':
      return { ok: true, amount: source.amount };
    case 'range':
      return chosenAmount(source.amount_range, input);
  }
}

/** The buyer's choice, once it is a decimal within the currency's minor units and within the bounds. */
function chosenAmount(range: AmountRange, input: BuyerInput): AmountDue {
  if (input.amount === undefined || input.amount.trim() === '')
    return { ok: false, range, problem: 'missing' };
  const read = parseBuyerDecimal(input.amount, input.locale, minorUnits(range.currency) ?? 2);
  // Both readings are asked about even when only one lies within the bounds: the buyer who meant the other
  // would pay an amount they never chose.
  if (!read.ok) return { ok: false, range, problem: read.problem };
  if ((read.value.split('.')[0] ?? '').length > MAX_INTEGER_DIGITS) {
    return { ok: false, range, problem: 'invalid' };
  }
  const chosen = { value: read.value, currency: range.currency };
  const minor = toMinorUnits(chosen);
  if (minor < toMinorUnits({ value: range.minimum, currency: range.currency })) {
    return { ok: false, range, problem: 'out_of_range' };
  }
  if (minor > toMinorUnits({ value: range.maximum, currency: range.currency })) {
    return { ok: false, range, problem: 'out_of_range' };
  }
  return { ok: true, amount: { value: fromMinorUnits(minor, range.currency), currency: range.currency } };
}

/** One problem with a merchant's `amount_range`, at a field of it. */
export interface RangeProblem {
  field: 'minimum' | 'maximum' | 'suggested';
  detail: string;
}

/**
 * What is wrong with an `amount_range` whose values are each plain decimals above zero in a payable currency (the
 * request schema checks that): more fraction digits than the currency has, or bounds out of order
 * (minimum <= suggested <= maximum).
 */
export function rangeProblems(range: AmountRange): RangeProblem[] {
  const problems: RangeProblem[] = [];
  const fields = ['minimum', 'maximum', 'suggested'] as const;
  for (const field of fields) {
    const value = range[field];
    const problem = value ? fractionDigitsProblem(value, range.currency) : undefined;
    if (problem) problems.push({ field, detail: problem });
  }
  if (problems.length > 0) return problems;
  const minor = (value: string) => toMinorUnits({ value, currency: range.currency });
  if (minor(range.minimum) > minor(range.maximum)) {
    problems.push({ field: 'maximum', detail: 'Must not be below minimum.' });
  } else if (
    range.suggested &&
    (minor(range.suggested) < minor(range.minimum) || minor(range.suggested) > minor(range.maximum))
  ) {
    problems.push({ field: 'suggested', detail: 'Must be between minimum and maximum.' });
  }
  return problems;
}
