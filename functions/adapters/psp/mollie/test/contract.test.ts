import { describe, expect, it } from 'vitest';
import { usePspAdapters } from '../../../../../test/support/psp-adapters.ts';
import { basketLink, orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { MOLLIE_FAKE } from './fake.ts';

/**
 * The Mollie adapter's typical calls, through the official SDK, against its fake held to Mollie's own OpenAPI
 * document (test/contract/; docs/testing.md#psp-contract-tests): every request the adapter sends and every answer
 * the fake gives conforms, and the fake refuses, as Mollie does, what the document refuses.
 */
const { connections, fakes, psps } = usePspAdapters('contract', { mollie: MOLLIE_FAKE });
const { mollie: mollieConnection } = connections;
const mollieKey = MOLLIE_FAKE.credentials.api_key;

describe('the Mollie adapter against mollie/openapi', () => {
  it('sends and is answered only what the document allows: create, retrieve, cancel, refund, read the refund', async () => {
    const plain = await psps.mollie.createSession(sessionRequest(orderLink('10.00'), mollieConnection));
    await psps.mollie.createSession(sessionRequest(basketLink(), mollieConnection));
    expect((await psps.mollie.retrieveSession(plain.id)).state).toBe('pending');
    expect(await psps.mollie.expireSession(plain)).toBe('ended');
    const paid = await psps.mollie.createSession(sessionRequest(orderLink('30.00'), mollieConnection));
    fakes.mollie.setStatus(paid.id, 'paid');
    expect((await psps.mollie.retrieveSession(paid.id)).amount).toEqual({ value: '30.00', currency: 'EUR' });
    const refund = await psps.mollie.refund({
      refundId: 're_contract000000000000000001',
      linkId: 'pl_contract',
      paymentReference: paid.id,
      amount: { value: '5.00', currency: 'EUR' },
      description: 'Order 1001',
    });
    expect((await psps.mollie.retrieveRefund(refund.reference)).state).toBe('pending');
    expect(fakes.mollie.exchanges.length).toBeGreaterThanOrEqual(7);
    expect(fakes.mollie.violations).toEqual([]);
  });

  it('is refused as Mollie refuses what its document refuses: a description over 255 characters', async () => {
    const before = fakes.mollie.violations.length;
    const link = { ...orderLink('10.00'), description: 'x'.repeat(256) };
    // The adapter cuts descriptions to Mollie's maximum, so the fake is asked directly.
    const response = await fetch(`${fakes.mollie.apiEndpoint}payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mollieKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: { currency: 'EUR', value: '10.00' },
        description: link.description,
        redirectUrl: 'https://shop.example/thanks',
      }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ status: 422, title: 'Unprocessable Entity' });
    expect(fakes.mollie.violations.slice(before).join('\n')).toMatch(/description/);
  });
});
