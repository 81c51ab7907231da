import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

const SANDBOX_KEY = /^sk_sbox_[a-z2-7]{26}[a-z2-7*#$=]$/;
const LIVE_KEY = /^sk_[a-z2-7]{26}[a-z2-7*#$=]$/;
const text = (description: string) =>
  z.string().check(z.trim(), z.minLength(1, 'Must not be empty.'), z.describe(description));

/** What a Checkout.com connection stores (docs/orchestration.md#checkoutcom). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    secret_key: z.string().check(
      z.trim(),
      z.refine(
        (key) => SANDBOX_KEY.test(key) || LIVE_KEY.test(key),
        'Must be sk_sbox_… (test) or sk_… (live).',
      ),
      z.describe('a secret key of its mode, sk_sbox_…|sk_…'),
    ),
    processing_channel_id: z
      .string()
      .check(
        z.trim(),
        z.regex(/^pc_[a-z2-7]{26}$/, 'Must be pc_….'),
        z.describe('the processing channel pc_… every payment link is made on'),
      ),
    signature_key: text('the signature key of its webhook (Cko-Signature)'),
    previous_signature_key: z.optional(
      text('the signature key being replaced, accepted while a rotation overlaps'),
    ),
    subdomain: z.optional(
      z
        .string()
        .check(
          z.trim(),
          z.regex(/^[0-9a-z]{8,11}$/, 'Must be the first 8 characters of the client id.'),
          z.describe('its merchant-specific subdomain, the first 8 characters of its client id'),
        ),
    ),
  }),
);

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'checkout_com', aliases: ['checkout'] } as const;

/**
 * Checkout.com's Payment Links (docs/orchestration.md#checkoutcom): a payment link cannot be ended early, so it is
 * made with capture disabled, and we capture the buyer's authorization only while our link can still be paid by
 * it, else void it. Its three-decimal currencies only in whole hundredths (docs.checkout.com "Calculating the
 * amount value"); elsewhere its minor units are ISO 4217's. Its page asks the buyer none of our details. Its id is
 * `checkout_com`, not `checkout`, which is our own page's name everywhere: connections stored as `checkout`, and
 * notification addresses configured at Checkout.com as `/psp/checkout/notifications/<connection id>`, before the
 * rename are read as its (`aliases`).
 */
export const checkoutCom: PspDescriptor<ReturnType<typeof credentials>, 'checkout_com'> = {
  id: 'checkout_com',
  aliases: ['checkout'],
  displayName: 'Checkout.com',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ secret_key }, mode) => {
    const keyMode = SANDBOX_KEY.test(secret_key) ? 'test' : 'live';
    return keyMode === mode
      ? undefined
      : `A ${mode}-mode Checkout.com connection needs a ${mode === 'test' ? 'sandbox (sk_sbox_…)' : 'live (sk_…)'} secret key.`;
  },
  amounts: { psp: 'Checkout.com', wholeHundredths: ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'] },
  pageAsks: {},
  methods: {
    card: 'card',
    applepay: 'applepay',
    googlepay: 'googlepay',
    ideal: 'ideal',
    bancontact: 'bancontact',
    sepa_debit: 'sepa',
    paypal: 'paypal',
    eps: 'eps',
    przelewy24: 'p24',
    klarna: 'klarna',
    blik: 'blik',
    twint: 'twint',
  },
  capabilities: [
    'captures_later',
    'voids_authorizations',
    'refunds',
    'partial_refunds',
    'line_items',
    'locale',
  ],
  /** A payment link lives from 1 second to 14 days (`expires_in`, 86400 s unless told); we keep to a day. */
  sessionLimits: { minMs: 900_000, maxMs: 1_209_600_000, preferredMs: 86_400_000 },
  // A declined payment's authorization `response_code`. 20068 (response received too late), 20091 (issuer
  // unavailable or switch inoperative), 20096 (system malfunction) and 20153 (3DS system malfunction) say the
  // issuer or the network failed, not the card: outages.
  declines: {
    '20005': 'do_not_honor',
    '20051': 'insufficient_funds',
    '20054': 'expired_card',
    '20014': 'incorrect_details',
    '20082': 'incorrect_details',
    '20059': 'suspected_fraud',
    '20041': 'lost_or_stolen_card',
    '20043': 'lost_or_stolen_card',
    '20061': 'limit_exceeded',
    '20065': 'limit_exceeded',
    '20154': 'authentication_required',
    '20068': 'psp_unavailable',
    '20091': 'psp_unavailable',
    '20096': 'psp_unavailable',
    '20153': 'psp_unavailable',
  },
  notificationAddress: 'configured',
};
