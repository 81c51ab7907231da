import { describe, expect, it } from 'vitest';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { FAKE_CHECKOUT_CREDENTIALS, useCheckoutAdapter } from './adapter-setup.ts';

/**
 * The Checkout.com adapter's typical calls, through `checkout-sdk-node`, against its fake held to Checkout.com's
 * own document (test/contract/; docs/testing.md#psp-contract-tests): every request the adapter sends and every
 * answer the fake gives conforms, and the fake refuses, as Checkout.com does, what the document refuses.
 */
const { connection, started } = useCheckoutAdapter('contract');

describe('the Checkout.com adapter against checkout/checkout-api-reference', () => {
  it('sends and is answered only what the document allows: link, payment, capture, void, refund, actions', async () => {
    const captured = await started.psp.createSession(sessionRequest(orderLink('30.00'), connection));
    const voided = await started.psp.createSession(sessionRequest(orderLink('10.00'), connection));
    expect((await started.psp.retrieveSession(captured.id)).amount).toEqual({
      value: '30.00',
      currency: 'EUR',
    });
    const payment = await started.fake.pay(captured.id);
    await started.psp.captureSession?.({ id: captured.id, paymentId: captured.payment_id });
    await started.fake.pay(voided.id);
    await started.psp.voidAuthorization?.({ id: voided.id, paymentId: voided.payment_id });
    const refund = await started.psp.refund({
      refundId: 're_contract000000000000000001',
      linkId: 'pl_contract',
      paymentReference: payment.id,
      amount: { value: '5.00', currency: 'EUR' },
    });
    await started.fake.settleRefund(payment.id, refund.reference.split('/')[1] as string, true);
    expect((await started.psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    const operations = new Set(
      started.fake.exchanges.map(({ method, path }) => `${method} ${path.replace(/_\w+/g, '_')}`),
    );
    expect([...operations].sort()).toEqual([
      'GET /payment-links/pl_',
      'GET /payments/pay_',
      'GET /payments/pay_/actions',
      'POST /payment-links',
      'POST /payments/pay_/captures',
      'POST /payments/pay_/refunds',
      'POST /payments/pay_/voids',
    ]);
    expect(started.fake.violations).toEqual([]);
  });

  it.each([
    ['an amount that is no integer', { amount: 10.5 }, /amount must be integer/],
    [
      'a locale Checkout.com does not speak',
      { locale: 'xx-XX' },
      /locale must be equal to one of the allowed values/,
    ],
    ['a link without its billing country', { billing: { address: {} } }, /country/],
  ])('refuses %s as Checkout.com does (422)', async (_, change, violation) => {
    const before = started.fake.violations.length;
    const response = await fetch(`${started.fake.url}/payment-links`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${FAKE_CHECKOUT_CREDENTIALS.secret_key}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        amount: 1000,
        currency: 'EUR',
        billing: { address: { country: 'NL' } },
        processing_channel_id: FAKE_CHECKOUT_CREDENTIALS.processing_channel_id,
        ...change,
      }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error_type: 'request_invalid' });
    expect(started.fake.violations.slice(before).join('\n')).toMatch(violation);
  });
});
