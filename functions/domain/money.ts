import { ISO_4217_MINOR_UNITS } from './iso-4217.ts';

export interface Amount {
  /** Decimal string exactly as the merchant sent it, e.g. "10.50". */
  value: string;
  currency: string;
}

export const MAX_INTEGER_DIGITS = 12;
/** The most minor units of any ISO 4217 currency (CLF, UYW); test/unit/iso-4217.test.ts checks it. */
export const MAX_MINOR_UNITS = 4;
/** The longest amount `value` that can pass: the integer digits, the point and the currency's minor units. */
export const MAX_AMOUNT_VALUE_LENGTH = MAX_INTEGER_DIGITS + 1 + MAX_MINOR_UNITS;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Minor units (digits after the decimal point) of an active ISO 4217 currency, or undefined. ISO 4217 comes from
 * the maintained `currency-codes` data, never a hand-typed list: functions/domain/iso-4217.ts is generated from it
 * (bin/iso-4217.ts says which codes count as payable) and checked against it by a test.
 */
export function minorUnits(currency: string): number | undefined {
  // A plain lookup, no table built at import: bundles that never check a currency drop the data.
  return Object.hasOwn(ISO_4217_MINOR_UNITS, currency) ? ISO_4217_MINOR_UNITS[currency] : undefined;
}

export function isPayableCurrency(currency: string): boolean {
  return minorUnits(currency) !== undefined;
}

export const DECIMAL_PATTERN = DECIMAL;

/** Why `value` is not a valid amount in any currency, or undefined when it is. */
export function amountValueProblem(value: string): string | undefined {
  const match = DECIMAL.exec(value);
  if (!match) return 'Must be a plain decimal string such as "10.50".';
  if ((match[1] ?? '').length > MAX_INTEGER_DIGITS)
    return `Must have at most ${MAX_INTEGER_DIGITS} integer digits.`;
  if (/^[0.]+$/.test(value)) return 'Must be greater than zero.';
  return undefined;
}

/** Why a well-formed `value` has too many decimals for `currency` (JPY 0, EUR 2, KWD 3), or undefined. */
export function fractionDigitsProblem(value: string, currency: string): string | undefined {
  const digits = minorUnits(currency);
  const fraction = value.split('.')[1] ?? '';
  if (digits === undefined || fraction.length <= digits) return undefined;
  return digits === 0
    ? `${currency} has no decimal places.`
    : `${currency} allows at most ${digits} decimal place${digits === 1 ? '' : 's'}.`;
}

/**
 * The amount as an integer count of 10^-digits units (what PSPs take): "10.5" EUR → 1050n. `digits` defaults to
 * the currency's ISO 4217 minor units; a PSP whose exponent differs for a currency passes its own. Throws when
 * the amount has more decimals than `digits` can carry (never rounds money).
 */
export function toMinorUnits(amount: Amount, digits = minorUnits(amount.currency)): bigint {
  if (digits === undefined) throw new Error(`Unknown currency ${amount.currency}`);
  const [integer = '0', fraction = ''] = amount.value.split('.');
  if (fraction.replace(/0+$/, '').length > digits) {
    throw new Error(`${amount.value} ${amount.currency} cannot be expressed with ${digits} decimal places`);
  }
  return BigInt(integer + fraction.slice(0, digits).padEnd(digits, '0'));
}

/**
 * The decimal string of an integer count of minor units, with exactly the currency's ISO 4217 decimals:
 * 1050n EUR → "10.50", 0n EUR → "0.00", 500n JPY → "500". The inverse of `toMinorUnits`.
 */
export function fromMinorUnits(minor: bigint, currency: string): string {
  const digits = minorUnits(currency);
  if (digits === undefined) throw new Error(`Unknown currency ${currency}`);
  const sign = minor < 0n ? '-' : '';
  const text = (minor < 0n ? -minor : minor).toString().padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
