import { describe, expect, it } from 'vitest';
import { ADYEN_SESSION_LIMITS } from '../../functions/adapters/psp/adyen-psp.ts';
import { CHECKOUT_SESSION_LIMITS } from '../../functions/adapters/psp/checkout-psp.ts';
import { MOLLIE_SESSION_LIMITS } from '../../functions/adapters/psp/mollie-psp.ts';
import { PAYPAL_SESSION_LIMITS } from '../../functions/adapters/psp/paypal-psp.ts';
import { SANDBOX_SESSION_LIMITS } from '../../functions/adapters/psp/sandbox-psp.ts';
import { STRIPE_SESSION_LIMITS } from '../../functions/adapters/psp/stripe-psp.ts';
import { sessionExpiry } from '../../functions/domain/checkout/sessions.ts';
import type { Provider } from '../../functions/domain/connection.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { LONGEST_SESSION_MS } from '../../functions/use-cases/visit-payments.ts';

/** Every provider's limits: a new provider does not compile until it is here. */
const LIMITS: Record<Provider, { minMs: number; maxMs: number; preferredMs: number }> = {
  sandbox: SANDBOX_SESSION_LIMITS,
  stripe: STRIPE_SESSION_LIMITS,
  mollie: MOLLIE_SESSION_LIMITS,
  adyen: ADYEN_SESSION_LIMITS,
  paypal: PAYPAL_SESSION_LIMITS,
  checkout: CHECKOUT_SESSION_LIMITS,
};

describe('PSP session lifetimes', () => {
  it('never exceed LONGEST_SESSION_MS, which bounds what a reusable link’s checkout reads', () => {
    const now = new Date('2026-11-28T10:00:00Z');
    const link = newPaymentLink(
      { account: 'a', mode: 'test' },
      { amount: { value: '1', currency: 'EUR' } },
      now,
    );
    for (const [provider, limits] of Object.entries(LIMITS)) {
      const lifetime = sessionExpiry(link, now, limits).getTime() - now.getTime();
      expect(lifetime, provider).toBeLessThanOrEqual(LONGEST_SESSION_MS);
    }
  });
});
