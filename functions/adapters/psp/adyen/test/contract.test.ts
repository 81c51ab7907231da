import { describe, expect, it } from 'vitest';
import { usePspAdapters } from '../../../../../test/support/psp-adapters.ts';
import { basketLink, orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { ADYEN_FAKE } from './fake.ts';

/**
 * The Adyen adapter's typical calls, through the official SDK, against its fake held to Adyen's own OpenAPI
 * document (test/contract/; docs/testing.md#psp-contract-tests): every request the adapter sends and every answer
 * the fake gives conforms, and the fake refuses, as Adyen does, what the document refuses.
 */
const { connections, fakes, psps } = usePspAdapters('contract', { adyen: ADYEN_FAKE });
const { adyen: adyenConnection } = connections;
const adyenCredentials = ADYEN_FAKE.credentials;

describe('the Adyen adapter against Adyen/adyen-openapi CheckoutService-v72', () => {
  it('sends and is answered only what the document allows: create, retrieve, expire, refund', async () => {
    const plain = await psps.adyen.createSession(sessionRequest(orderLink('10.00'), adyenConnection));
    await psps.adyen.createSession(sessionRequest(basketLink(), adyenConnection));
    expect((await psps.adyen.retrieveSession(plain.id)).amount).toEqual({ value: '10.00', currency: 'EUR' });
    expect(await psps.adyen.expireSession(plain)).toBe('ended');
    const paid = await psps.adyen.createSession(sessionRequest(orderLink('30.00'), adyenConnection));
    const item = fakes.adyen.pay(paid.id);
    await psps.adyen.refund({
      refundId: 're_contract000000000000000002',
      linkId: 'pl_contract',
      paymentReference: item.pspReference,
      amount: { value: '5.00', currency: 'EUR' },
    });
    expect(fakes.adyen.exchanges.length).toBeGreaterThanOrEqual(6);
    expect(fakes.adyen.violations).toEqual([]);
  });

  const post = (body: Record<string, unknown>, path = 'paymentLinks') =>
    fetch(`${fakes.adyen.url}/v72/${path}`, {
      method: 'POST',
      headers: { 'x-api-key': adyenCredentials.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: { currency: 'EUR', value: 1000 },
        merchantAccount: 'AcmeECOM',
        reference: 'pay_contract',
        ...body,
      }),
    });

  it.each([
    ['a currency that is no ISO code', { amount: { currency: 'EURO', value: 1000 } }, 422, /currency/],
    ['an unknown field', { shopperLanguage: 'nl' }, 400, /unknown field shopperLanguage/],
  ])('refuses %s as Adyen does', async (_, body, status, violation) => {
    const before = fakes.adyen.violations.length;
    const response = await post(body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ status, errorType: 'validation' });
    expect(fakes.adyen.violations.slice(before).join('\n')).toMatch(violation);
  });

  it('refuses, as Adyen does, a link that stores the payment method without a model or a shopper reference', async () => {
    const merchantAccount = adyenCredentials.merchant_account;
    for (const body of [
      { storePaymentMethodMode: 'enabled', shopperReference: 'pay_contract' },
      { storePaymentMethodMode: 'askForConsent', recurringProcessingModel: 'Subscription' },
    ]) {
      const response = await post({ ...body, merchantAccount });
      expect(response.status).toBe(422);
    }
    const stored = await post({
      merchantAccount,
      storePaymentMethodMode: 'enabled',
      recurringProcessingModel: 'Subscription',
      shopperReference: 'pay_contract',
    });
    expect(await stored.json()).toMatchObject({
      storePaymentMethodMode: 'enabled',
      shopperReference: 'pay_contract',
    });
  });

  it('refuses a payment with a stored card but no returnUrl, which the document requires of every payment', async () => {
    const before = fakes.adyen.violations.length;
    const response = await post(
      {
        paymentMethod: { type: 'scheme', storedPaymentMethodId: 'M5N7TQ4TG5PFWR50' },
        shopperReference: 'pay_contract',
        shopperInteraction: 'ContAuth',
        recurringProcessingModel: 'Subscription',
      },
      'payments',
    );
    expect(response.status).toBe(422);
    expect(fakes.adyen.violations.slice(before).join('\n')).toMatch(/returnUrl/);
  });
});
