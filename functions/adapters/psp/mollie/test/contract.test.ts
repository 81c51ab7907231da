import { describe, expect, it } from 'vitest';
import { usePspAdapters } from '../../../../../test/support/psp-adapters.ts';
import { basketLink, orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { canHoldMandates } from '../../../../ports/psp.ts';
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

  it('holds mandates within the document: customer, first payment, mandate read back, recurring payments', async () => {
    const psp = psps.mollie;
    if (!canHoldMandates(psp)) throw new Error('The Mollie adapter holds no mandates');
    const periodAmount = { value: '9.90', currency: 'EUR' };
    const first = await psp.createSession({
      ...sessionRequest(orderLink('9.90'), mollieConnection),
      opensMandate: { subscriptionId: 'sub_contract', withoutCharge: false, periodAmount, recurring: null },
    });
    fakes.mollie.setStatus(first.id, 'paid');
    // Read back from the payment's mandate, then (the payment naming none yet) from the customer's list.
    const opened = await psp.mandateOf({ id: first.id, paymentReference: first.id });
    delete fakes.mollie.payments.get(first.id)?.mandateId;
    expect(await psp.mandateOf({ id: first.id, paymentReference: first.id })).toEqual(opened);
    if (opened.state !== 'ready') throw new Error('no mandate');
    const charge = (idempotencyKey: string) =>
      psp.chargeMandate({
        mandate: opened.mandate,
        amount: periodAmount,
        idempotencyKey,
        paymentId: `pay_${idempotencyKey}`,
        subscriptionId: 'sub_contract',
        period: 1,
        description: 'Membership (period 1)',
      });
    expect((await charge('contract.1.1')).state).toBe('succeeded');
    fakes.mollie.mandates.nextCharge('soft_decline');
    expect((await charge('contract.1.2')).state).toBe('failed');
    fakes.mollie.mandates.nextCharge('revoked');
    expect((await charge('contract.1.3')).state).toBe('failed');
    const paths = fakes.mollie.exchanges.map(({ method, path }) => `${method} ${path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /v2/customers',
        `GET /v2/customers/${opened.mandate.customer}/mandates/${opened.mandate.reference}`,
        `GET /v2/customers/${opened.mandate.customer}/mandates`,
      ]),
    );
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
