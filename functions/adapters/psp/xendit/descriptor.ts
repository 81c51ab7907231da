import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

/** What a Xendit connection stores (docs/orchestration.md#xendit). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    secret_key: z
      .string()
      .check(
        z.regex(
          /^xnd_(development|production)_[A-Za-z0-9]+$/,
          'Must be xnd_development_… or xnd_production_….',
        ),
        z.describe('its secret API key xnd_development_…|xnd_production_… (Settings → API Keys)'),
      ),
    callback_token: z
      .string()
      .check(
        z.minLength(1, 'Must be the webhook verification token Xendit shows.'),
        z.describe(
          'its webhook verification token of the same environment (Settings → Webhooks), which every notification carries as x-callback-token',
        ),
      ),
  }),
);

/**
 * Its id, all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`). The descriptor
 * repeats it as a literal, so that a bundle using only this drops the descriptor (test/unit/psp-kit.test.ts holds
 * the two equal).
 */
export const identity = { id: 'xendit' } as const;

/**
 * Xendit's Payment Sessions in `PAYMENT_LINK` mode (docs/orchestration.md#xendit): one session per attempt with our
 * payment id as `reference_id`, its hosted page at `payment_link_url`. Its adapter calls Xendit's REST API through a
 * small HTTPS client of its own: `xendit-node` 7 has no Payment Sessions client, and its refunds drop the refund's
 * `status`, the one thing we read of one.
 *
 * - Amounts: major units as JSON numbers, in the currencies a session takes, each with the country Xendit asks
 *   beside it; IDR in whole rupiah only (ISO 4217 gives it two decimals), VND whole dong as ISO 4217 does. USD is
 *   left out: a session's `country` must be given with it, and USD names none.
 * - A session can be canceled while it is `ACTIVE` (`ends_sessions`); a declined attempt leaves it `ACTIVE`, the
 *   buyer may try again on its page.
 * - Notifications carry the environment's static verification token: compared in constant time, then the session
 *   or refund they name is read back (amount and currency compared) before anything is taken.
 * - Refunds, also in part (`POST /refunds` of the session's payment request).
 */
export const xendit: PspDescriptor<ReturnType<typeof credentials>, 'xendit'> = {
  id: 'xendit',
  displayName: 'Xendit',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ secret_key }, mode) =>
    secret_key.startsWith(mode === 'live' ? 'xnd_production_' : 'xnd_development_')
      ? undefined
      : `A ${mode}-mode Xendit connection needs a secret key ${mode === 'live' ? 'xnd_production_' : 'xnd_development_'}....`,
  amounts: {
    psp: 'Xendit',
    currencies: ['IDR', 'PHP', 'THB', 'VND', 'MYR', 'SGD'],
    exponents: { IDR: 0 },
  },
  pageAsks: {},
  // Its channel codes (`allowed_payment_channels`); `bank_transfer` is its virtual accounts, one code per bank.
  methods: {
    card: 'CARDS',
    qris: 'QRIS',
    gcash: 'GCASH',
    ovo: 'OVO',
    dana: 'DANA',
    shopeepay: 'SHOPEEPAY',
    bank_transfer: 'VIRTUAL_ACCOUNT',
  },
  capabilities: ['ends_sessions', 'refunds', 'partial_refunds', 'locale'],
  /**
   * Xendit refuses a session that expires less than 10 minutes after it is made (`INVALID_EXPIRY_DATE`); its
   * fragments state no maximum, and a day is ours.
   */
  sessionLimits: { minMs: 900_000, maxMs: 86_400_000, preferredMs: 3_600_000 },
  notificationAddress: 'configured',
};
