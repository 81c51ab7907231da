import type { Provider } from './connection.ts';
import { type Amount, fromMinorUnits, minorUnits, toMinorUnits } from './money.ts';

/**
 * What each PSP can take of an amount, pure: a valid amount of ours (ISO 4217 decimals) that a provider's API
 * refuses. The one place for these rules (docs/orchestration.md#amounts-each-psp-can-take), checked before the PSP
 * is asked: at checkout, a connection that cannot take the link's amount is not asked and the next one is,
 * without counting against its health (docs/orchestration.md#health); a refund the paying PSP cannot express is a
 * 422 (docs/webhooks.md#refunds). The adapters convert amounts with the same exponents (`stripeMinorUnits`,
 * `adyenMinorUnits`).
 */

/** What the amount is for: a payment (a checkout session) or a refund, which has no minimum or maximum charge. */
export type AmountUse = 'payment' | 'refund';

/**
 * Why `provider` cannot take `amount` for `use`, or undefined when it can. The sandbox takes every amount a link
 * can have. Mollie's limits depend on the payment method the buyer picks on its page, and its currencies on the
 * account: Mollie says so itself (422, a refusal that fails over without counting against the connection).
 */
export function pspAmountProblem(provider: Provider, amount: Amount, use: AmountUse): string | undefined {
  switch (provider) {
    case 'stripe':
      return stripeAmountProblem(amount, use);
    case 'adyen':
      return adyenAmountProblem(amount);
    case 'paypal':
      return paypalAmountProblem(amount);
    case 'checkout':
      return checkoutAmountProblem(amount);
    default:
      return undefined;
  }
}

/**
 * Why `provider` cannot take one of the unit amounts of the lines a session is sent with, or undefined. Stripe
 * is sent each line's `unit_amount` (the adapter never sends a total), and refuses any of them that breaks its
 * per-amount rules even when the sum would pass: KWD 1.005 × 2 adds up to a valid 2.010, yet Stripe refuses
 * `unit_amount=1005`. Adyen's and Mollie's lines carry amounts whose expressibility the total already decides.
 */
export function pspLinesProblem(provider: Provider, unitAmounts: readonly Amount[]): string | undefined {
  if (provider !== 'stripe') return undefined;
  for (const [index, unitAmount] of unitAmounts.entries()) {
    const problem = stripeUnitProblem(unitAmount);
    if (problem) return `Line ${index + 1}: ${problem}`;
  }
  return undefined;
}

/**
 * Stripe's amount exponent where it differs from ISO 4217 (docs.stripe.com/currencies): MGA is zero-decimal at
 * Stripe (ISO: 2), and ISK is sent in two-decimal form although it has none (ISO: 0). Elsewhere they agree
 * (JPY 0, EUR 2, KWD 3 ...).
 */
const STRIPE_EXPONENT_OVERRIDES: Record<string, number> = { MGA: 0, ISK: 2 };

/**
 * Stripe's three-decimal currencies: amounts in their minor units must end in 0 (docs.stripe.com/currencies,
 * "Three-decimal currencies"), i.e. be whole hundredths: KWD 10.010 is taken, KWD 10.005 is refused.
 */
export const STRIPE_THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'BHD',
  'JOD',
  'KWD',
  'OMR',
  'TND',
]);

/**
 * Stripe's minimum charge per presentment currency, in its minor units (docs.stripe.com/currencies, "Minimum
 * and maximum charge amounts"); other currencies have a minimum equivalent to 0.50 USD, which only Stripe can
 * convert, so they are left to Stripe.
 */
const STRIPE_MINIMUMS: Record<string, bigint> = {
  USD: 50n,
  AED: 200n,
  AUD: 50n,
  BGN: 100n,
  BRL: 50n,
  CAD: 50n,
  CHF: 50n,
  CZK: 1500n,
  DKK: 250n,
  EUR: 50n,
  GBP: 30n,
  HKD: 400n,
  HUF: 17500n,
  INR: 50n,
  JPY: 50n,
  MXN: 1000n,
  MYR: 200n,
  NOK: 300n,
  NZD: 50n,
  PLN: 200n,
  RON: 200n,
  SEK: 300n,
  SGD: 50n,
  THB: 1000n,
};
/** Stripe takes at most eight digits of minor units (twelve for IDR). */
const STRIPE_MAXIMUM = 99_999_999n;
const STRIPE_MAXIMUMS: Record<string, bigint> = { IDR: 999_999_999_999n };

/** The amount in the minor units Stripe expects (`unit_amount`, a refund's `amount`); throws if it has none. */
export function stripeMinorUnits(amount: Amount): bigint {
  return toMinorUnits(amount, STRIPE_EXPONENT_OVERRIDES[amount.currency]);
}

/**
 * Why Stripe cannot take `amount`: more decimals than Stripe's exponent of the currency, a three-decimal amount
 * not in whole hundredths, and for a payment, below Stripe's minimum or above its maximum charge.
 */
function stripeAmountProblem(amount: Amount, use: AmountUse): string | undefined {
  const problem = stripeUnitProblem(amount);
  if (problem || use === 'refund') return problem;
  const minor = stripeMinorUnits(amount);
  const minimum = STRIPE_MINIMUMS[amount.currency];
  if (minimum !== undefined && minor < minimum) {
    return `${amount.value} ${amount.currency} is below Stripe's minimum charge.`;
  }
  if (minor > (STRIPE_MAXIMUMS[amount.currency] ?? STRIPE_MAXIMUM)) {
    return `${amount.value} ${amount.currency} is above Stripe's maximum charge.`;
  }
  return undefined;
}

/** Why Stripe cannot take `amount` as any amount at all (a total, a line's unit amount, a refund). */
function stripeUnitProblem(amount: Amount): string | undefined {
  let minor: bigint;
  try {
    minor = stripeMinorUnits(amount);
  } catch {
    return `Stripe cannot express ${amount.value} ${amount.currency} (too many decimals for the currency).`;
  }
  if (STRIPE_THREE_DECIMAL_CURRENCIES.has(amount.currency) && minor % 10n !== 0n) {
    return `Stripe takes ${amount.currency} amounts only in whole hundredths (the third decimal must be 0).`;
  }
  return undefined;
}

/** An amount Stripe states in its minor units (`amount_total` with the lowercase `currency`), in our form. */
export function fromStripeMinorUnits(minor: number, currency: string): Amount {
  const code = currency.toUpperCase();
  return { value: fromPspMinorUnits(BigInt(minor), code, STRIPE_EXPONENT_OVERRIDES[code]), currency: code };
}

/**
 * A PSP's count of its minor units as our decimal string with the currency's ISO 4217 decimals: Stripe's ISK
 * 10000 (two-decimal form) is "100", its MGA 500 (zero-decimal) "500.00". Throws when the PSP's amount has
 * decimals the currency does not (it cannot have taken one).
 */
function fromPspMinorUnits(minor: bigint, currency: string, exponent: number | undefined): string {
  const iso = minorUnits(currency);
  if (iso === undefined) throw new Error(`Unknown currency ${currency}`);
  const digits = exponent ?? iso;
  if (digits <= iso) return fromMinorUnits(minor * 10n ** BigInt(iso - digits), currency);
  const scale = 10n ** BigInt(digits - iso);
  if (minor % scale !== 0n) throw new Error(`${minor} in ${currency} has more decimals than ISO 4217 allows`);
  return fromMinorUnits(minor / scale, currency);
}

/** Adyen's minor units where they differ from ISO 4217 (docs.adyen.com "Currency codes and minor units"). */
const ADYEN_EXPONENT_OVERRIDES: Record<string, number> = { CLP: 2, CVE: 0, IDR: 0, ISK: 2 };

/** The amount in the minor units Adyen expects (`amount.value`); throws if it has none. */
export function adyenMinorUnits(amount: Amount): bigint {
  return toMinorUnits(amount, ADYEN_EXPONENT_OVERRIDES[amount.currency]);
}

/** An amount Adyen states in its minor units (`{ value, currency }`), in our form. */
export function fromAdyenMinorUnits(amount: { value: number; currency: string }): Amount {
  return {
    value: fromPspMinorUnits(
      BigInt(amount.value),
      amount.currency,
      ADYEN_EXPONENT_OVERRIDES[amount.currency],
    ),
    currency: amount.currency,
  };
}

/** An amount with more decimals than Adyen's minor units of the currency (IDR and CVE have none) cannot be sent. */
function adyenAmountProblem(amount: Amount): string | undefined {
  try {
    adyenMinorUnits(amount);
    return undefined;
  } catch {
    return `Adyen cannot express ${amount.value} ${amount.currency} (it takes no decimals in that currency).`;
  }
}

/**
 * The currencies PayPal's REST APIs take (developer.paypal.com/api/rest/reference/currency-codes); HUF, JPY and
 * TWD without decimals (HUF and TWD have two in ISO 4217).
 */
const PAYPAL_CURRENCIES: ReadonlySet<string> = new Set([
  ...['AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN', 'TWD'],
  ...['NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD'],
]);
const PAYPAL_EXPONENT_OVERRIDES: Record<string, number> = { HUF: 0, TWD: 0 };

/** The amount as PayPal's `value`: a decimal string with PayPal's decimals of the currency ("10.50", "500"). */
export function paypalValue(amount: Amount): string {
  const digits = PAYPAL_EXPONENT_OVERRIDES[amount.currency] ?? minorUnits(amount.currency) ?? 2;
  const minor = toMinorUnits(amount, digits)
    .toString()
    .padStart(digits + 1, '0');
  return digits === 0 ? minor : `${minor.slice(0, -digits)}.${minor.slice(-digits)}`;
}

/** A currency PayPal does not take, or decimals it does not take in it (HUF 10.50). */
function paypalAmountProblem(amount: Amount): string | undefined {
  if (!PAYPAL_CURRENCIES.has(amount.currency)) return `PayPal does not take ${amount.currency}.`;
  try {
    paypalValue(amount);
    return undefined;
  } catch {
    return `PayPal cannot express ${amount.value} ${amount.currency} (it takes no decimals in that currency).`;
  }
}

/**
 * Checkout.com's three-decimal currencies, whose amounts in minor units must end in 0 (docs.checkout.com
 * "Calculating the amount value"): BHD 10.010 is taken, BHD 10.005 is refused. Elsewhere its minor units are
 * ISO 4217's.
 */
const CHECKOUT_THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'BHD',
  'IQD',
  'JOD',
  'KWD',
  'LYD',
  'OMR',
  'TND',
]);

/** The amount in the minor units Checkout.com expects (`amount`, a product's `price`); throws if it has none. */
export function checkoutMinorUnits(amount: Amount): bigint {
  return toMinorUnits(amount);
}

/** An amount Checkout.com states in its minor units (`amount` with `currency`), in our form. */
export function fromCheckoutMinorUnits(minor: number, currency: string): Amount {
  return { value: fromPspMinorUnits(BigInt(minor), currency, undefined), currency };
}

/** A three-decimal amount not in whole hundredths cannot be sent to Checkout.com. */
function checkoutAmountProblem(amount: Amount): string | undefined {
  if (CHECKOUT_THREE_DECIMAL_CURRENCIES.has(amount.currency) && checkoutMinorUnits(amount) % 10n !== 0n) {
    return `Checkout.com takes ${amount.currency} amounts only in whole hundredths (the third decimal must be 0).`;
  }
  return undefined;
}
