import { describe, expect, it } from 'vitest';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';
import { sessionExpiry } from '../../functions/domain/checkout/sessions.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { LONGEST_SESSION_MS } from '../../functions/use-cases/visit-payments.ts';

describe('PSP session lifetimes', () => {
  it('never exceed LONGEST_SESSION_MS at any registered PSP, which bounds what a reusable link’s checkout reads', () => {
    const now = new Date('2026-11-28T10:00:00Z');
    const link = newPaymentLink(
      { account: 'a', mode: 'test' },
      { amount: { value: '1', currency: 'EUR' } },
      now,
    );
    for (const { id: provider, sessionLimits: limits } of PSP_DESCRIPTORS) {
      const lifetime = sessionExpiry(link, now, limits).getTime() - now.getTime();
      expect(lifetime, provider).toBeLessThanOrEqual(LONGEST_SESSION_MS);
    }
  });
});
