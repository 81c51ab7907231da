import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

/** What a Mollie connection stores (docs/orchestration.md#mollie). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    api_key: z
      .string()
      .check(
        z.regex(/^(test|live)_[A-Za-z0-9]{30,}$/, 'Must be test_… or live_… (30 characters or more).'),
        z.describe('its API key test_…|live_…'),
      ),
    access_token: z.optional(
      z
        .string()
        .check(
          z.regex(/^access_[A-Za-z0-9]{30,}$/, 'Must be access_… (30 characters or more).'),
          z.describe(
            'an organization access token access_… with settlements.read, payments.read and refunds.read: its settlements are then read and matched (Mollie lists settlements to no API key)',
          ),
        ),
    ),
  }),
);

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'mollie' } as const;

/**
 * Mollie's Payments API with its hosted checkout (docs/orchestration.md#mollie). Its limits depend on the method
 * the buyer picks on its page and its currencies on the account: Mollie says so itself (422, a refusal that fails
 * over without counting against the connection). Its page asks the buyer none of our details.
 */
export const mollie: PspDescriptor<ReturnType<typeof credentials>, 'mollie'> = {
  id: 'mollie',
  displayName: 'Mollie',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ api_key }, mode) =>
    api_key.startsWith(`${mode}_`)
      ? undefined
      : `A ${mode}-mode Mollie connection needs a ${mode}_… API key, not ${api_key.slice(0, 5)}….`,
  amounts: { psp: 'Mollie' },
  pageAsks: {},
  methods: {
    card: 'creditcard',
    applepay: 'applepay',
    // Mollie offers Google Pay on its card method.
    googlepay: 'creditcard',
    ideal: 'ideal',
    bancontact: 'bancontact',
    sepa_debit: 'directdebit',
    paypal: 'paypal',
    eps: 'eps',
    przelewy24: 'przelewy24',
    klarna: 'klarna',
    blik: 'blik',
    twint: 'twint',
  },
  capabilities: ['ends_sessions', 'refunds', 'partial_refunds', 'line_items', 'locale', 'lists_payouts'],
  /**
   * Mollie decides how long an open payment lives (per method, from minutes to days for bank transfers) and
   * says so in `expiresAt`; without it we assume the shortest common window, 15 minutes.
   */
  sessionLimits: { minMs: 900_000, maxMs: 900_000, preferredMs: 900_000 },
  notificationAddress: 'per_session',
};
