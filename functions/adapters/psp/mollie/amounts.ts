import { type Amount, minorUnits, toMinorUnits } from '../../../domain/money.ts';

/** Mollie wants exactly the currency's decimals ("10.50", "500" for JPY); merchants may send "10.5". */
export function mollieAmount(amount: Amount): { currency: string; value: string } {
  const digits = minorUnits(amount.currency) ?? 2;
  const minor = toMinorUnits(amount, digits)
    .toString()
    .padStart(digits + 1, '0');
  const value = digits === 0 ? minor : `${minor.slice(0, -digits)}.${minor.slice(-digits)}`;
  return { currency: amount.currency, value };
}
