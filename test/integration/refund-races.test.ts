import { describe, expect, it } from 'vitest';
import { refundPsps } from './refund-psps.ts';

/**
 * Refunds of one link racing each other and what the PSP answers them (docs/webhooks.md#refunds): every write a
 * refund needs lands whatever the others write meanwhile, and the merchant is told what is stored.
 */
const psps = refundPsps();
const { keys, paidLink, requestRefund, refundsOf } = psps;

describe('concurrent refunds of one link', () => {
  it('Stripe: each refund keeps the reference the PSP answered, though the others moved the link meanwhile', async () => {
    const link = await paidLink('stripe', '20.00');

    const created = await Promise.all(
      Array.from({ length: 10 }, () => requestRefund('stripe', link.id, '1.00')),
    );

    expect(created.map((response) => response.status)).toEqual(Array(10).fill(201));
    const stored = await refundsOf('stripe', link.id);
    expect(stored).toHaveLength(10);
    for (const answered of created) {
      expect(answered.body.provider_reference).toMatch(/^re_/);
      // What the merchant was told is what is stored: the sweeper and the PSP's notifications read it back.
      expect(stored.find(({ id }: { id: string }) => id === answered.body.id)).toMatchObject({
        status: 'pending',
        provider_reference: answered.body.provider_reference,
      });
    }
    const references = stored.map(
      ({ provider_reference }: { provider_reference: string }) => provider_reference,
    );
    expect(new Set(references).size).toBe(10);
    // The books' copy of each refund (GET /v1/refunds) follows the write that stored its reference.
    const books = await psps.started().stack.request('GET', `/v1/refunds?link_id=${link.id}`, {
      key: keys.stripe.api_key,
    });
    expect(
      books.body.data
        .map(({ provider_reference }: { provider_reference: string }) => provider_reference)
        .sort(),
    ).toEqual(references.sort());
  });
});
