import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';
import { legacyStripeNotificationLink, legacyStripeSecretName } from './legacy.ts';

const SECRET = /^whsec_[A-Za-z0-9_]+$/;

/** What a Stripe connection stores (docs/orchestration.md#stripe). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    secret_key: z
      .string()
      .check(
        z.regex(
          /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/,
          'Must be sk_test_…, sk_live_…, rk_test_… or rk_live_….',
        ),
        z.describe('its secret key sk_test_…|sk_live_… (or a restricted key rk_…)'),
      ),
    webhook_secret: z
      .string()
      .check(
        z.regex(SECRET, 'Must be whsec_….'),
        z.describe('the signing secret whsec_… of its webhook endpoint'),
      ),
    previous_webhook_secret: z.optional(
      z
        .string()
        .check(
          z.regex(SECRET, 'Must be whsec_….'),
          z.describe('the signing secret being replaced, whsec_…, accepted while a rotation overlaps'),
        ),
    ),
  }),
);

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'stripe' } as const;

/**
 * Stripe Checkout (docs/orchestration.md#stripe). Its amounts (docs.stripe.com/currencies): MGA is zero-decimal at
 * Stripe (ISO: 2) and ISK is sent in two-decimal form although it has none (ISO: 0); its three-decimal currencies
 * only in whole hundredths; a minimum charge per presentment currency (other currencies have a minimum equivalent
 * to 0.50 USD, which only Stripe can convert, so they are left to Stripe); at most eight digits of minor units
 * (twelve for IDR). It is sent each line's `unit_amount` (never a total) and checks each.
 *
 * Its page (its `PostCheckoutSessions` document and docs.stripe.com/payments/checkout/phone-numbers, /collect-addresses):
 * always the e-mail; a phone number (`phone_number_collection`, a required field once enabled); the billing address
 * (`billing_address_collection: required`); the shipping address in the countries named
 * (`shipping_address_collection.allowed_countries`).
 */
export const stripe: PspDescriptor<ReturnType<typeof credentials>, 'stripe'> = {
  id: 'stripe',
  displayName: 'Stripe',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ secret_key }, mode) =>
    secret_key.startsWith(`sk_${mode}_`) || secret_key.startsWith(`rk_${mode}_`)
      ? undefined
      : `A ${mode}-mode Stripe connection needs a secret key sk_${mode}_... (or rk_${mode}_...).`,
  amounts: {
    psp: 'Stripe',
    exponents: { MGA: 0, ISK: 2 },
    wholeHundredths: ['BHD', 'JOD', 'KWD', 'OMR', 'TND'],
    // biome-ignore format: a table, one line per group of currencies
    minimums: {
      USD: 50, AED: 200, AUD: 50, BGN: 100, BRL: 50, CAD: 50, CHF: 50, CZK: 1500, DKK: 250, EUR: 50,
      GBP: 30, HKD: 400, HUF: 17500, INR: 50, JPY: 50, MXN: 1000, MYR: 200, NOK: 300, NZD: 50,
      PLN: 200, RON: 200, SEK: 300, SGD: 50, THB: 1000,
    },
    maximums: { default: 99_999_999, IDR: 999_999_999_999 },
    checksEachLine: true,
  },
  pageAsks: { email: 'always', phone: 'required', billing_address: 'required', shipping_address: 'required' },
  methods: {
    card: 'card',
    // Stripe offers the wallets on its card method.
    applepay: 'card',
    googlepay: 'card',
    ideal: 'ideal',
    bancontact: 'bancontact',
    sepa_debit: 'sepa_debit',
    paypal: 'paypal',
    eps: 'eps',
    przelewy24: 'p24',
    klarna: 'klarna',
    blik: 'blik',
    twint: 'twint',
  },
  capabilities: [
    'ends_sessions',
    'refunds',
    'partial_refunds',
    'reads_buyer_details',
    'line_items',
    'locale',
    'holds_mandates',
    // A trial's Checkout Session in setup mode (./mandate-session.ts).
    'mandates_without_charge',
    'lists_payouts',
  ],
  /**
   * Stripe Checkout Sessions live 30 minutes to 24 hours after their creation at Stripe, counted in whole seconds
   * (`expires_at`, floored; `created`, Stripe's own clock when the request arrives). The shortest session we ask
   * for is a minute longer, so that flooring and the time the request takes to reach Stripe (at most one call
   * budget) never bring it under 30 minutes; the longest a minute shorter, so that our clock running ahead of
   * Stripe's (two machines' clocks; the checkout's strictly increasing `now`) never brings it over 24 hours.
   * Asking for exactly 24 hours was refused once in a test run, and a refused session is a buyer without a
   * payment page.
   */
  sessionLimits: { minMs: 1_860_000, maxMs: 86_340_000, preferredMs: 86_340_000 },
  notificationAddress: 'configured',
  legacy: { secretName: legacyStripeSecretName, notificationLink: legacyStripeNotificationLink },
};
