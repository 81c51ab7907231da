import type { CredentialsSchema, PspDescriptor } from '../../../ports/psp-descriptor.ts';

/**
 * Its id (and former ids), all that a function reading stored items needs of it (the registry's `PSP_IDENTITIES`).
 * The descriptor repeats them as literals, so that a bundle using only this drops the descriptor
 * (test/unit/psp-kit.test.ts holds the two equal).
 */
export const identity = { id: 'sandbox' } as const;

/**
 * The sandbox: a simulated PSP built into the service, for test mode and the local stack (docs/checkout.md#sandbox,
 * docs/orchestration.md#the-sandbox-and---simulate). It has no credentials (its signing secret is the service's),
 * takes every amount a link can have and every method, and its page asks the buyer nothing.
 */
export const sandbox: PspDescriptor<CredentialsSchema, 'sandbox'> = {
  id: 'sandbox',
  displayName: 'Sandbox',
  testModeOnly: true,
  credentials: null,
  credentialsProblem: () => undefined,
  amounts: { psp: 'Sandbox' },
  pageAsks: {},
  methods: {
    card: 'card',
    applepay: 'applepay',
    googlepay: 'googlepay',
    ideal: 'ideal',
    bancontact: 'bancontact',
    sepa_debit: 'sepa_debit',
    paypal: 'paypal',
    eps: 'eps',
    przelewy24: 'przelewy24',
    klarna: 'klarna',
    blik: 'blik',
    twint: 'twint',
    cashapp: 'cashapp',
    afterpay_clearpay: 'afterpay_clearpay',
    qris: 'qris',
    gcash: 'gcash',
    ovo: 'ovo',
    dana: 'dana',
    shopeepay: 'shopeepay',
    upi: 'upi',
    netbanking: 'netbanking',
  },
  capabilities: [
    'ends_sessions',
    'refunds',
    'partial_refunds',
    'locale',
    'holds_mandates',
    'mandates_without_charge',
  ],
  sessionLimits: { minMs: 60_000, maxMs: 86_400_000, preferredMs: 3_600_000 },
  // Its codes are the card networks' decline names as PSPs spell them (`--simulate decline_*` gives them).
  declines: {
    insufficient_funds: 'insufficient_funds',
    generic_decline: 'do_not_honor',
    expired_card: 'expired_card',
    incorrect_cvc: 'incorrect_details',
    fraudulent: 'suspected_fraud',
    authentication_required: 'authentication_required',
  },
  notificationAddress: 'per_session',
};
