import type { Provider } from './connection.ts';
import { type Amount, toMinorUnits } from './money.ts';

/**
 * What each PSP can express of an amount, pure: a valid amount of ours (ISO 4217 decimals) that a provider's API
 * refuses. Checked before the PSP is asked: at checkout, a connection that cannot express the link's amount is
 * not asked (the next one is, docs/orchestration.md#amounts-each-psp-can-take); a refund it cannot express is a
 * 422 (docs/webhooks.md#refunds). One rule per provider; the others take every valid amount.
 */

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

/** The amount in the minor units Stripe expects (`unit_amount`, a refund's `amount`). */
export function stripeMinorUnits(amount: Amount): bigint {
  return toMinorUnits(amount, STRIPE_EXPONENT_OVERRIDES[amount.currency]);
}

/** Why Stripe cannot take `amount`, or undefined when it can. */
export function stripeAmountProblem(amount: Amount): string | undefined {
  let minor: bigint;
  try {
    minor = stripeMinorUnits(amount);
  } catch {
    return `Stripe takes ${amount.currency} amounts without decimals.`;
  }
  if (STRIPE_THREE_DECIMAL_CURRENCIES.has(amount.currency) && minor % 10n !== 0n) {
    return `Stripe takes ${amount.currency} amounts only in whole hundredths (the third decimal must be 0).`;
  }
  return undefined;
}

/** Why the provider cannot take `amount`, or undefined when it can. */
export function pspAmountProblem(provider: Provider, amount: Amount): string | undefined {
  return provider === 'stripe' ? stripeAmountProblem(amount) : undefined;
}
