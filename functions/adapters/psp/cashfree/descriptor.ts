import { once } from '../../../once.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';
import * as z from '../../../zod.ts';

const text = (description: string) =>
  z.string().check(z.trim(), z.minLength(1, 'Must not be empty.'), z.describe(description));

/** What a Cashfree connection stores (docs/orchestration.md#cashfree). */
const credentials = /* @__PURE__ */ once(() =>
  z.object({
    client_id: text('the client id (x-client-id) of its Payment Gateway API keys'),
    client_secret: text(
      'the client secret (x-client-secret) of those keys, which also signs its webhooks, cfsk_ma_…',
    ),
  }),
);

/**
 * Whether the keys carry the mark of Cashfree's other environment than `mode`'s, as its dashboard issues them
 * (not a documented format, so only a key that carries the other environment's mark is refused): sandbox app
 * ids start with `TEST`, and secrets read `cfsk_ma_test_…` in the sandbox and `cfsk_ma_prod_…` in production.
 */
const ofOtherEnvironment = (clientId: string, clientSecret: string, mode: 'test' | 'live'): boolean =>
  mode === 'live'
    ? clientId.startsWith('TEST') || clientSecret.startsWith('cfsk_ma_test_')
    : clientSecret.startsWith('cfsk_ma_prod_');

/**
 * Its id, all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`). The descriptor
 * repeats it as a literal, so that a bundle using only this drops the descriptor (test/unit/psp-kit.test.ts holds
 * the two equal).
 */
export const identity = { id: 'cashfree' } as const;

/**
 * Cashfree Payments' Payment Links (docs/orchestration.md#cashfree): India's cards, UPI, netbanking and wallets on
 * Cashfree's hosted link page. Amounts are decimal major units with at most two decimals ("upto two decimals for
 * paise", its `CreateLinkRequest`), so a three-decimal currency is taken in whole hundredths of a unit at most;
 * Cashfree's least charge in INR is 1.00. Other currencies are enabled per account by Cashfree, which refuses
 * the others itself. Its page asks the buyer nothing of ours: the phone number a link needs is a placeholder
 * unless the address prefilled one (docs/orchestration.md#cashfree says why).
 */
export const cashfree: PspDescriptor<ReturnType<typeof credentials>, 'cashfree'> = {
  id: 'cashfree',
  displayName: 'Cashfree',
  testModeOnly: false,
  credentials,
  credentialsProblem: ({ client_id, client_secret }, mode) =>
    ofOtherEnvironment(client_id, client_secret, mode)
      ? `A ${mode}-mode Cashfree connection needs the API keys of its ${mode === 'live' ? 'production' : 'sandbox'} environment.`
      : undefined,
  amounts: {
    psp: 'Cashfree',
    wholeHundredths: ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'],
    minimums: { INR: 100 },
  },
  pageAsks: {},
  methods: {
    // Its link's `payment_methods`, a comma-separated list: credit and debit cards are two of its words.
    card: 'cc,dc',
    upi: 'upi',
    netbanking: 'nb',
    paypal: 'paypal',
  },
  capabilities: ['ends_sessions', 'refunds', 'partial_refunds'],
  /**
   * A link lives until its `link_expiry_time` (30 days when none is given, the longest we ask for). Cashfree
   * documents no shortest: a link expiring within a quarter of an hour is not asked for, so that a buyer has time
   * to approve in a UPI app.
   */
  sessionLimits: { minMs: 900_000, maxMs: 30 * 86_400_000, preferredMs: 86_400_000 },
  notificationAddress: 'per_session',
};
