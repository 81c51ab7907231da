import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

/** What a Paystack connection stores (docs/orchestration.md#paystack). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    secret_key: z
      .string()
      .check(
        z.regex(/^sk_(test|live)_[A-Za-z0-9]+$/, 'Must be sk_test_… or sk_live_….'),
        z.describe(
          'its secret key sk_test_…|sk_live_…, which also signs its notifications (x-paystack-signature)',
        ),
      ),
  }),
);

/**
 * Its id, all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`). The descriptor
 * repeats it as a literal, so that a bundle using only this drops the descriptor (test/unit/psp-kit.test.ts holds
 * the two equal).
 */
export const identity = { id: 'paystack' } as const;

/**
 * Paystack's Standard checkout (docs/orchestration.md#paystack): a transaction initialized with our reference,
 * its hosted page at `authorization_url`. Its adapter calls Paystack's REST API through a small HTTPS client of
 * its own, not `@paystack/paystack-sdk`: the SDK cannot be pointed at another origin (`PAYSTACK_API_URL`), has no
 * timeout, and resolves non-2xx answers, so that a refused key, a refusal and an outage cannot be told apart.
 *
 * - Amounts: integer subunits (kobo, pesewas, cents) of the currencies its document's `Currency` lists, each
 *   ISO 4217's two decimals; minimums per currency and channel are Paystack's own to say (a 400).
 * - It refuses a transaction without the buyer's e-mail, which its page never asks: our page asks it first
 *   (`needs`).
 * - A transaction cannot be canceled or expired (no such call): no `ends_sessions`, no capture. The checkout keeps
 *   one payable session per link by showing the same one again while it may be paid, and every success is read
 *   back (`GET /transaction/verify/{reference}`, amount and currency compared) before it is taken
 *   (docs/orchestration.md#capabilities).
 * - Refunds, also in part (`POST /refund`); Paystack takes no idempotency key, so a refund whose answer was lost is
 *   never asked again (`idempotencyWindowMs` 0).
 */
export const paystack: PspDescriptor<ReturnType<typeof credentials>, 'paystack'> = {
  id: 'paystack',
  displayName: 'Paystack',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ secret_key }, mode) =>
    secret_key.startsWith(`sk_${mode}_`)
      ? undefined
      : `A ${mode}-mode Paystack connection needs a secret key sk_${mode}_....`,
  amounts: { psp: 'Paystack', currencies: ['NGN', 'GHS', 'KES', 'ZAR', 'USD'] },
  pageAsks: {},
  needs: ['email'],
  // Its `channels` (TransactionInitialize): Apple Pay and QR are offered on its page with the card, not asked alone.
  methods: {
    card: 'card',
    bank_transfer: 'bank_transfer',
    ussd: 'ussd',
    mobile_money: 'mobile_money',
  },
  capabilities: ['refunds', 'partial_refunds'],
  /**
   * A transaction has no expiry of its own: it stays payable until the integration's payment session timeout
   * (Paystack's dashboard), which the merchant sets to at most our session's hour (docs/orchestration.md#paystack).
   */
  sessionLimits: { minMs: 900_000, maxMs: 3_600_000, preferredMs: 3_600_000 },
  notificationAddress: 'configured',
};
