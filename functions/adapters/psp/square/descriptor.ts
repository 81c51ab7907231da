import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

const SIGNATURE_KEY = /^\S{1,256}$/;

/** What a Square connection stores (docs/orchestration.md#square). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    access_token: z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9_-]{20,512}$/, 'Must be an access token (EAAA…).'),
        z.describe(
          'the access token EAAA… of its application (sandbox token for test mode, production for live)',
        ),
      ),
    location_id: z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9]{1,32}$/, 'Must be a location id (L…).'),
        z.describe('the id of the location that takes its payments (Square Dashboard → Locations)'),
      ),
    signature_key: z
      .string()
      .check(
        z.regex(SIGNATURE_KEY, 'Must be the signature key of a webhook subscription.'),
        z.describe('the signature key of its webhook subscription'),
      ),
    previous_signature_key: z.optional(
      z
        .string()
        .check(
          z.regex(SIGNATURE_KEY, 'Must be the signature key of a webhook subscription.'),
          z.describe('the signature key being replaced, accepted while a rotation overlaps'),
        ),
    ),
  }),
);

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'square' } as const;

/**
 * Square's Checkout API payment links (docs/orchestration.md#square). A seller's location takes its own country's
 * currency only (US, CA, GB, AU, JP; EUR in IE, FR, ES), in ISO 4217's minor units (`Money.amount`, an integer).
 * Its page always takes cards; Apple Pay, Google Pay, Cash App Pay and Afterpay/Clearpay are switched on per link
 * (`checkout_options.accepted_payment_methods`). Its payment links do not expire by themselves: the adapter deletes
 * one to end it, and ends one whose session we let expire when it next reads it.
 */
export const square: PspDescriptor<ReturnType<typeof credentials>, 'square'> = {
  id: 'square',
  displayName: 'Square',
  testModeOnly: false,
  credentials,
  // Access tokens of both environments start `EAAA`; only the legacy ones carry their environment.
  credentialsProblem: ({ access_token }, mode) =>
    mode === 'live' && access_token.startsWith('sandbox-')
      ? 'A live-mode Square connection needs a production access token, not a sandbox one.'
      : mode === 'test' && access_token.startsWith('sq0atp-')
        ? 'A test-mode Square connection needs a sandbox access token, not a production one.'
        : undefined,
  amounts: { psp: 'Square', currencies: ['USD', 'CAD', 'GBP', 'AUD', 'JPY', 'EUR'] },
  pageAsks: {},
  methods: {
    // Its page always offers cards; the wallets and the others are switched on one by one.
    card: 'card',
    applepay: 'apple_pay',
    googlepay: 'google_pay',
    cashapp: 'cash_app_pay',
    afterpay_clearpay: 'afterpay_clearpay',
  },
  capabilities: ['ends_sessions', 'refunds', 'partial_refunds', 'line_items'],
  /**
   * A payment link lives until it is deleted: its session lives as long as we say, an hour when the link allows
   * (the link is deleted when the session is next read after that, by the sweeper a minute later at the latest).
   */
  sessionLimits: { minMs: 60_000, maxMs: 86_400_000, preferredMs: 3_600_000 },
  // A failed payment's first card error (`card_details.errors[0].code`). TEMPORARY_ERROR, SERVICE_UNAVAILABLE
  // and GATEWAY_TIMEOUT are Square's or the network's failures, not the card's: outages.
  declines: {
    INSUFFICIENT_FUNDS: 'insufficient_funds',
    GENERIC_DECLINE: 'do_not_honor',
    CARD_DECLINED_CALL_ISSUER: 'do_not_honor',
    CARD_EXPIRED: 'expired_card',
    CVV_FAILURE: 'incorrect_details',
    ADDRESS_VERIFICATION_FAILURE: 'incorrect_details',
    INVALID_EXPIRATION: 'incorrect_details',
    INVALID_CARD: 'incorrect_details',
    INVALID_ACCOUNT: 'lost_or_stolen_card',
    CARD_NOT_SUPPORTED: 'method_not_available',
    CARD_DECLINED_VERIFICATION_REQUIRED: 'authentication_required',
    TRANSACTION_LIMIT: 'limit_exceeded',
    TEMPORARY_ERROR: 'psp_unavailable',
    SERVICE_UNAVAILABLE: 'psp_unavailable',
    GATEWAY_TIMEOUT: 'psp_unavailable',
  },
  notificationAddress: 'configured',
};
