import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

const HEX_KEY = /^[0-9A-Fa-f]{32,128}$/;
const text = (description: string) =>
  z.string().check(z.trim(), z.minLength(1, 'Must not be empty.'), z.describe(description));

/** What an Adyen connection stores (docs/orchestration.md#adyen). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    api_key: text('its API key (Customer Area, API credentials)'),
    merchant_account: text('its merchant account'),
    hmac_key: z
      .string()
      .check(z.regex(HEX_KEY, 'Must be hexadecimal.'), z.describe('the HMAC key (hex) of its webhook')),
    previous_hmac_key: z.optional(
      z
        .string()
        .check(
          z.regex(HEX_KEY, 'Must be hexadecimal.'),
          z.describe('the HMAC key being replaced, accepted while a rotation overlaps'),
        ),
    ),
    environment: z.enum(['test', 'live']).check(z.describe("Adyen's environment, test|live: the mode's")),
    live_endpoint_url_prefix: z.optional(
      z
        .string()
        .check(
          z.regex(/^[A-Za-z0-9-]+$/, 'Must be the [random]-[company name] prefix.'),
          z.describe('live only: the [random]-[company name] prefix of its live endpoints'),
        ),
    ),
  }),
);

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'adyen' } as const;

/**
 * Adyen's Checkout API, Pay by Link (docs/orchestration.md#adyen). Its minor units differ from ISO 4217 for a few
 * currencies (docs.adyen.com "Currency codes and minor units"). Its page (`PaymentLinkRequest`,
 * `requiredShopperFields`) asks the e-mail, the phone and the billing address, required only; its delivery
 * address cannot be held to a link's countries.
 */
export const adyen: PspDescriptor<ReturnType<typeof credentials>, 'adyen'> = {
  id: 'adyen',
  displayName: 'Adyen',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ environment, live_endpoint_url_prefix }, mode) => {
    if (environment !== mode) {
      return `A ${mode}-mode Adyen connection needs credentials of Adyen's ${mode} environment, not ${environment}.`;
    }
    if (mode === 'live' && !live_endpoint_url_prefix) {
      return 'A live Adyen connection needs its live_endpoint_url_prefix (Customer Area, API URLs).';
    }
    return undefined;
  },
  amounts: { psp: 'Adyen', exponents: { CLP: 2, CVE: 0, IDR: 0, ISK: 2 } },
  pageAsks: { email: 'required', phone: 'required', billing_address: 'required' },
  methods: {
    card: 'scheme',
    applepay: 'applepay',
    googlepay: 'googlepay',
    ideal: 'ideal',
    bancontact: 'bcmc',
    sepa_debit: 'sepadirectdebit',
    paypal: 'paypal',
    eps: 'eps',
    przelewy24: 'onlineBanking_PL',
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
  ],
  /** Payment links live up to 70 days at Adyen (24 hours unless told otherwise); we keep to a day. */
  sessionLimits: { minMs: 900_000, maxMs: 6_048_000_000, preferredMs: 86_400_000 },
  notificationAddress: 'configured',
};
