import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

const CLIENT_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** PayPal's environment of a connection of `mode`. */
const paypalEnvironmentOf = (mode: string): 'sandbox' | 'live' => (mode === 'live' ? 'live' : 'sandbox');

/** What a PayPal connection stores (docs/orchestration.md#paypal). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    client_id: z
      .string()
      .check(z.regex(CLIENT_ID, 'Must be a PayPal REST client id.'), z.describe('its REST app client id')),
    client_secret: z
      .string()
      .check(z.regex(CLIENT_ID, 'Must be a PayPal REST secret.'), z.describe('its REST app secret')),
    webhook_id: z
      .string()
      .check(
        z.regex(/^[A-Z0-9]{8,64}$/, 'Must be a PayPal webhook id.'),
        z.describe('the id PayPal gave the webhook that calls our notification address'),
      ),
    environment: z.optional(
      z
        .enum(['sandbox', 'live'])
        .check(z.describe("PayPal's environment, sandbox|live: the mode's, and only the mode's")),
    ),
  }),
);

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'paypal' } as const;

/**
 * PayPal's Orders v2 with its hosted approval page (docs/orchestration.md#paypal): no money moves until we capture
 * an approved order, and an order cannot be ended, so an attempt is released by our promise never to capture it.
 * Its currencies (developer.paypal.com/api/rest/reference/currency-codes): HUF, JPY and TWD without decimals (HUF
 * and TWD have two in ISO 4217). Its page always asks the payer's e-mail (the PayPal account's); its
 * `shipping_preference` `GET_FROM_FILE` lets the buyer pick an address in any country, so the shipping address is
 * ours to ask; no phone or billing address.
 */
export const paypal: PspDescriptor<ReturnType<typeof credentials>, 'paypal'> = {
  id: 'paypal',
  displayName: 'PayPal',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ environment }, mode) => {
    const expected = paypalEnvironmentOf(mode);
    return environment === undefined || environment === expected
      ? undefined
      : `A ${mode}-mode PayPal connection needs the ${expected} environment, not ${environment}.`;
  },
  amounts: {
    psp: 'PayPal',
    currencies: [
      ...['AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN', 'TWD'],
      ...['NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD'],
    ],
    exponents: { HUF: 0, TWD: 0 },
  },
  pageAsks: { email: 'always' },
  methods: { paypal: 'paypal' },
  capabilities: [
    'captures_later',
    'refunds',
    'partial_refunds',
    'reads_buyer_details',
    'line_items',
    'locale',
    // A vaulted wallet (functions/adapters/psp/paypal/mandates.ts); not `mandates_without_charge`: its document
    // has no vaulting without a purchase (docs/subscriptions.md#paypal).
    'holds_mandates',
  ],
  /**
   * A buyer has 3 hours to approve a PayPal order (PayPal's Orders v2 "Order expiration"); we ask for nothing
   * longer, and never capture one whose link could no longer be paid (docs/orchestration.md#deferred-capture).
   */
  sessionLimits: { minMs: 10_800_000, maxMs: 10_800_000, preferredMs: 10_800_000 },
  // The issue of a refused capture (its error's `details[0].issue`).
  declines: {
    INSTRUMENT_DECLINED: 'do_not_honor',
    TRANSACTION_REFUSED: 'do_not_honor',
    PAYER_CANNOT_PAY: 'method_not_available',
    PAYER_ACTION_REQUIRED: 'authentication_required',
    MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED: 'limit_exceeded',
    CARD_EXPIRED: 'expired_card',
    COMPLIANCE_VIOLATION: 'suspected_fraud',
  },
  notificationAddress: 'configured',
};
