import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import {
  basketLink,
  orderLink,
  sessionRequest,
  storedConnection,
} from '../../../../../test/support/psp-fixtures.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { PaypalPsp } from '../adapter.ts';
import { type FakePaypal, startFakePaypal } from './fake.ts';

/**
 * The PayPal adapter's typical calls, through the official SDK, against its fake held to PayPal's own OpenAPI
 * documents (test/contract/; docs/testing.md#psp-contract-tests): every request the adapter sends and every answer
 * the fake gives conforms, and the fake refuses, as PayPal does, what the documents refuse.
 */

describe('the PayPal adapter against paypal/paypal-rest-api-specifications', () => {
  const paypalCredentials = {
    client_id: 'AcontractPaypalClient_0123456789',
    client_secret: 'EcontractPaypalSecret_0123456789',
    webhook_id: '1JE4291016473214C',
    environment: 'sandbox',
  };
  const paypalConnection = storedConnection('paypal', 'test', 'pc_paypalcontract0000000000');
  let paypal: FakePaypal;
  let psp: PaypalPsp;
  let untrust: () => void;
  beforeAll(async () => {
    untrust = trustFakePspCertificate();
    paypal = await startFakePaypal({
      clientId: paypalCredentials.client_id,
      clientSecret: paypalCredentials.client_secret,
      webhookId: paypalCredentials.webhook_id,
    });
    const secrets = new Map([[paypalConnection.secret_name as string, JSON.stringify(paypalCredentials)]]);
    psp = await factoryOf<PaypalPsp>(PSP_FACTORIES.paypal, { secrets, apiUrl: paypal.url }).create(
      paypalConnection,
    );
  });
  afterAll(async () => {
    await paypal?.stop();
    untrust();
  });

  it('sends and is answered only what the documents allow: create, read, capture, verify, refund, read the refund', async () => {
    await psp.createSession(sessionRequest(basketLink(), paypalConnection));
    const request = sessionRequest(orderLink('30.00'), paypalConnection);
    const session = await psp.createSession(request);
    expect((await psp.retrieveSession(session.id)).state).toBe('pending');
    paypal.approve(session.id);
    const approved = paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: session.id });
    expect(await psp.verifyNotification(approved.body, approved.headers)).toHaveLength(1);
    const paid = await psp.captureSession({ id: session.id, paymentId: request.paymentId });
    expect(paid?.state).toBe('succeeded');
    const refund = await psp.refund({
      refundId: 're_contract000000000000000002',
      linkId: request.link.id,
      paymentReference: paid?.paymentReference as string,
      amount: { value: '5.00', currency: 'EUR' },
      description: 'Order 1001',
    });
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('pending');
    const judged = paypal.exchanges.filter((exchange) => exchange.path !== '/v1/oauth2/token');
    expect(judged.length).toBeGreaterThanOrEqual(7);
    expect(paypal.violations).toEqual([]);
  });

  it('is refused as PayPal refuses what its document refuses: an intent it does not know', async () => {
    const token = (
      (await (
        await fetch(`${paypal.url}/v1/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${paypalCredentials.client_id}:${paypalCredentials.client_secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        })
      ).json()) as { access_token: string }
    ).access_token;
    const before = paypal.violations.length;
    const response = await fetch(`${paypal.url}/v2/checkout/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        intent: 'SALE',
        purchase_units: [{ amount: { currency_code: 'EUR', value: '10.00' } }],
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { name: string }).name).toBe('INVALID_REQUEST');
    expect(paypal.violations.length - before).toBeGreaterThan(0);
  });
});
