import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

const SECRET = /^\S{8,}$/;

/** What a Mercado Pago connection stores (docs/orchestration.md#mercado-pago). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    access_token: z
      .string()
      .check(
        z.regex(/^(TEST|APP_USR)-\S+$/, 'Must be TEST-… or APP_USR-….'),
        z.describe(
          'its access token: TEST-… (test credentials), or APP_USR-… (production credentials, or a test user’s)',
        ),
      ),
    webhook_secret: z
      .string()
      .check(
        z.regex(SECRET, 'Must be the secret signature of the application’s webhooks.'),
        z.describe('the secret signature of its webhooks (Your integrations → Webhooks), for this mode'),
      ),
    previous_webhook_secret: z.optional(
      z
        .string()
        .check(
          z.regex(SECRET, 'Must be the secret signature being replaced.'),
          z.describe('the secret signature being replaced, accepted while a rotation overlaps'),
        ),
    ),
  }),
);

/**
 * Its id, all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`). The descriptor
 * repeats it as a literal, so that a bundle using only this drops the descriptor (test/unit/psp-kit.test.ts holds
 * the two equal).
 */
export const identity = { id: 'mercadopago' } as const;

/**
 * Mercado Pago's Checkout Pro (docs/orchestration.md#mercado-pago): a preference per attempt, its page at
 * `init_point`, through the official `mercadopago` SDK (loaded on the first connection built).
 *
 * - Amounts are decimal major units (JSON numbers) in the currencies of its sites (its document's `currency_id`);
 *   Chilean and Colombian pesos in whole units only (Mercado Pago's own plugins round CLP and COP to integers:
 *   ISO 4217 gives COP two decimals), each line's `unit_price` alike, since each is sent.
 * - Its page asks what it needs itself (the payer's e-mail and document), nothing we collect.
 * - A preference is ended by setting `expiration_date_to` to now; a cash or Pix payment already generated stays
 *   payable until its own expiry, which is set to the session's (`date_of_expiration`).
 * - Refunds, also in part (`POST /v1/payments/{id}/refunds`, with `X-Idempotency-Key`).
 * - Its notifications are configured once per application and mode (Webhooks, with a secret signature), and
 *   carry only the payment's id, which is then read back.
 */
export const mercadopago: PspDescriptor<ReturnType<typeof credentials>, 'mercadopago'> = {
  id: 'mercadopago',
  displayName: 'Mercado Pago',
  testModeOnly: false,
  credentials,
  // Test users' credentials are production ones (APP_USR-…): only a TEST- token is known to be of test mode.
  credentialsProblem: ({ access_token }, mode) =>
    mode === 'live' && access_token.startsWith('TEST-')
      ? 'A live-mode Mercado Pago connection needs production credentials (APP_USR-...), not TEST-....'
      : undefined,
  amounts: {
    psp: 'Mercado Pago',
    currencies: ['ARS', 'BRL', 'CLP', 'MXN', 'COP', 'PEN', 'UYU'],
    exponents: { CLP: 0, COP: 0 },
    checksEachLine: true,
  },
  pageAsks: {},
  // Its payment types and methods (`payment_methods.excluded_payment_types`/`excluded_payment_methods`): cards are
  // the types credit_card, debit_card and prepaid_card; Pix is a bank_transfer, boleto and OXXO are tickets.
  methods: {
    card: 'credit_card',
    pix: 'pix',
    boleto: 'bolbradesco',
    oxxo: 'oxxo',
  },
  capabilities: ['ends_sessions', 'refunds', 'partial_refunds', 'line_items'],
  sessionLimits: { minMs: 300_000, maxMs: 86_400_000, preferredMs: 3_600_000 },
  // A rejected payment's `status_detail`.
  declines: {
    cc_rejected_insufficient_amount: 'insufficient_funds',
    cc_rejected_other_reason: 'do_not_honor',
    cc_rejected_call_for_authorize: 'do_not_honor',
    cc_rejected_bad_filled_card_number: 'incorrect_details',
    cc_rejected_bad_filled_date: 'incorrect_details',
    cc_rejected_bad_filled_security_code: 'incorrect_details',
    cc_rejected_bad_filled_other: 'incorrect_details',
    cc_rejected_high_risk: 'suspected_fraud',
    cc_rejected_blacklist: 'suspected_fraud',
    cc_rejected_card_disabled: 'lost_or_stolen_card',
    cc_rejected_max_attempts: 'limit_exceeded',
    cc_rejected_card_type_not_allowed: 'method_not_available',
    cc_rejected_3ds_challenge: 'authentication_required',
    cc_rejected_duplicated_payment: 'processing_error',
  },
  notificationAddress: 'configured',
};
