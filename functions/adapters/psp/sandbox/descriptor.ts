import type { CredentialsSchema, PspDescriptor } from '../../../ports/psp-descriptor.ts';

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
    upi: 'upi',
    netbanking: 'netbanking',
  },
  capabilities: ['ends_sessions', 'refunds', 'partial_refunds', 'locale'],
  sessionLimits: { minMs: 60_000, maxMs: 86_400_000, preferredMs: 3_600_000 },
  notificationAddress: 'per_session',
};
