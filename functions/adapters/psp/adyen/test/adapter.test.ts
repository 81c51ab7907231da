// @module-tag waits: a hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../../../../../test/support/eventually.ts';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { detailsPspPageAsks } from '../../../../domain/buyer.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import type { PaymentLink } from '../../../../domain/payment-link.ts';
import { type Psp, PspRefusalError } from '../../../../ports/psp.ts';
import { PspCallTimeoutError } from '../../kit/calls.ts';
import { adyen as descriptor } from '../descriptor.ts';
import {
  credentials,
  hmacKey,
  liveConnection,
  liveCredentials,
  merchantAccount,
  paidAt,
  rotatedHmacKey,
  testConnection,
  useFakeAdyen,
} from './adapter-setup.ts';
import type { FakeAdyen } from './fake.ts';

const fake = useFakeAdyen();
let adyen: FakeAdyen;
let factory: (typeof fake)['factory'];
beforeAll(() => {
  ({ adyen, factory } = fake);
});
const paid = (psp: Psp, value?: string) => paidAt(adyen, psp, value);

describe('the Adyen adapter, through @adyen/api-library against an Adyen-speaking server', () => {
  it('creates a single-use payment link with the amount in minor units, our reference, return URL and expiry', async () => {
    const psp = await factory.create(testConnection);
    const paymentLink = orderLink('10.5');
    const options = sessionRequest(paymentLink, testConnection);
    const session = await psp.createSession(options);

    const request = adyen.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', path: '/v72/paymentLinks' });
    expect(request?.headers['x-api-key']).toBe(credentials.api_key);
    expect(request?.headers['idempotency-key']).toBe(options.paymentId);
    expect(JSON.parse(request?.body ?? '')).toEqual({
      amount: { currency: 'EUR', value: 1050 },
      merchantAccount,
      reference: options.paymentId,
      description: 'Order 1001',
      returnUrl: 'https://shop.example/thanks',
      shopperLocale: 'en-US',
      expiresAt: options.expiresAt.toISOString(),
      reusable: false,
      metadata: { link_id: paymentLink.id, payment_id: options.paymentId },
    });
    expect(session).toEqual({
      provider: 'adyen',
      connection_id: testConnection.id,
      payment_id: options.paymentId,
      id: expect.stringMatching(/^PL[0-9A-F]+$/),
      url: `https://test.adyen.link/${session.id}`,
      expires_at: options.expiresAt.toISOString(),
    });
    expect(psp.checkoutOrigin).toBe(new URL(session.url).origin);
  });

  it('refuses locally an amount Adyen cannot express, and takes its 5xx as its own failure, not a refusal', async () => {
    const psp = await factory.create(testConnection);
    const sent = adyen.requests.length;
    await expect(
      psp.createSession(sessionRequest(orderLink('10.50', 'IDR'), testConnection)),
    ).rejects.toThrow(PspRefusalError);
    expect(adyen.requests.length).toBe(sent);
    adyen.outage = 'error';
    try {
      const failure = await psp
        .createSession(sessionRequest(orderLink('5.00'), testConnection))
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(PspRefusalError);
    } finally {
      adyen.outage = 'none';
    }
  });

  it("uses Adyen's minor units where they differ from ISO 4217: ISK and CLP with two, IDR and CVE with none", async () => {
    const psp = await factory.create(testConnection);
    const sent = async (value: string, currency: string) => {
      await psp.createSession(sessionRequest(orderLink(value, currency), testConnection));
      return JSON.parse(adyen.requests.at(-1)?.body ?? '').amount.value;
    };
    expect(await sent('500', 'ISK')).toBe(50000);
    expect(await sent('1000', 'CLP')).toBe(100000);
    expect(await sent('15000', 'IDR')).toBe(15000);
    expect(await sent('250', 'JPY')).toBe(250);
    expect(await sent('1.5', 'KWD')).toBe(1500);
  });

  it('verifies an AUTHORISATION signed with the HMAC key, then confirms it by fetching the payment link', async () => {
    const psp = await factory.create(testConnection);
    const { paymentLink, session, item, notifications } = await paid(psp, '25.00');
    expect(notifications).toEqual([
      { type: 'AUTHORISATION', sessionId: session.id, refundReference: null, livemode: false },
    ]);
    expect(await psp.retrieveSession(session.id)).toEqual({
      id: session.id,
      paymentId: session.payment_id,
      linkId: paymentLink.id,
      state: 'succeeded',
      failure: null,
      paymentReference: item.pspReference,
      amount: { value: '25.00', currency: 'EUR' },
      livemode: false,
    });
    expect(adyen.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v72/paymentLinks/${session.id}` });
  });

  it("asks Adyen's page the required details of collect, prefills the e-mail, and reads the shopper's answers back", async () => {
    const psp = await factory.create(testConnection);
    const asking: PaymentLink = {
      ...orderLink('30.00'),
      collect: {
        email: 'required' as const,
        phone: 'required' as const,
        billing_address: 'required' as const,
        shipping_address: { countries: ['NL'] },
      },
    };
    const session = await psp.createSession({
      ...sessionRequest(asking, testConnection),
      references: { client_reference_id: 'crm-4410', prefilled_email: 'sam@example.com' },
      pageAsks: detailsPspPageAsks(asking.collect, descriptor.pageAsks),
    });
    expect(JSON.parse(adyen.requests.at(-1)?.body ?? '')).toMatchObject({
      // Adyen cannot hold a delivery address to a link's countries: our page asks that one first.
      requiredShopperFields: ['shopperEmail', 'telephoneNumber', 'billingAddress', 'shopperName'],
      shopperEmail: 'sam@example.com',
      shopperReference: 'crm-4410',
    });
    expect(adyen.violations).toEqual([]);
    const item = adyen.pay(session.id, { shopperEmail: 'sam@example.com', telephoneNumber: '020 794 9999' });
    await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
    const status = await psp.retrieveSession(session.id);
    expect(status.state).toBe('succeeded');
    expect(status.buyer).toEqual({
      email: 'sam@example.com',
      name: 'Sam Shopper',
      phone: '+31207949999',
      billing_address: {
        line1: 'Simon Carmiggeltstraat 6-50',
        city: 'Amsterdam',
        postal_code: '1011 DJ',
        country: 'NL',
      },
    });
    expect(adyen.violations).toEqual([]);
  });

  it('sends no shopperReference shorter than Adyen takes, and reads back no e-mail it only prefilled', async () => {
    const psp = await factory.create(testConnection);
    const session = await psp.createSession({
      ...sessionRequest(orderLink('30.00'), testConnection),
      references: { client_reference_id: 'ab', prefilled_email: 'sam@example.com' },
    });
    const sent = JSON.parse(adyen.requests.at(-1)?.body ?? '');
    expect(sent.shopperReference).toBeUndefined();
    expect(sent.requiredShopperFields).toBeUndefined();
    const item = adyen.pay(session.id);
    await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
    expect((await psp.retrieveSession(session.id)).buyer).toBeUndefined();
  });

  it('does not take a payment as made on the strength of a notification alone: the link must say completed', async () => {
    const psp = await factory.create(testConnection);
    const session = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    const item = adyen.pay(session.id);
    adyen.paymentLinks.get(session.id)!.status = 'active';
    await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
    const status = await psp.retrieveSession(session.id);
    expect(status.state).toBe('pending');
    expect(status.paymentReference).toBeNull();
  });

  it('refuses a batch with one item that is unsigned, signed with another key, or altered', async () => {
    const psp = await factory.create(testConnection);
    const session = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    const item = adyen.pay(session.id);
    const forged = adyen.notification([item], { hmacKey: rotatedHmacKey });
    await expect(psp.verifyNotification(forged, {})).rejects.toThrow(InvalidNotificationError);

    const altered = JSON.parse(adyen.notification([item], { hmacKey }));
    altered.notificationItems[0].NotificationRequestItem.amount.value = 1;
    await expect(psp.verifyNotification(JSON.stringify(altered), {})).rejects.toThrow(
      InvalidNotificationError,
    );

    const unsigned = JSON.parse(adyen.notification([item], { hmacKey }));
    delete unsigned.notificationItems[0].NotificationRequestItem.additionalData.hmacSignature;
    await expect(psp.verifyNotification(JSON.stringify(unsigned), {})).rejects.toThrow(
      InvalidNotificationError,
    );

    const good = JSON.parse(adyen.notification([item], { hmacKey })).notificationItems[0];
    const mixed = JSON.stringify({
      live: 'false',
      notificationItems: [good, JSON.parse(forged).notificationItems[0]],
    });
    await expect(psp.verifyNotification(mixed, {})).rejects.toThrow(InvalidNotificationError);
    await expect(psp.verifyNotification('not json', {})).rejects.toThrow(InvalidNotificationError);
    await expect(psp.verifyNotification('{"live":"false","notificationItems":[]}', {})).rejects.toThrow(
      InvalidNotificationError,
    );
  });

  it('ignores a paymentLinkId moved onto another link: the signed reference and amount must match the link', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '10.00');
    const other = await psp.createSession(sessionRequest(orderLink('10.00'), testConnection));
    adyen.paymentLinks.get(other.id)!.status = 'completed';
    const moved = { ...item, additionalData: { ...item.additionalData, paymentLinkId: other.id } };
    await psp.verifyNotification(adyen.notification([moved], { hmacKey }), {});
    expect((await psp.retrieveSession(other.id)).paymentReference).toBeNull();
  });

  it('refuses a live notification on a test connection, and a test one on a live connection', async () => {
    const test = await factory.create(testConnection);
    const session = await test.createSession(sessionRequest(orderLink('5.00'), testConnection));
    const item = adyen.pay(session.id);
    await expect(
      test.verifyNotification(adyen.notification([item], { hmacKey, live: true }), {}),
    ).rejects.toThrow(InvalidNotificationError);
    const live = await factory.create(liveConnection);
    await expect(live.verifyNotification(adyen.notification([item], { hmacKey }), {})).rejects.toThrow(
      InvalidNotificationError,
    );
  });

  it('answers notifications with [accepted], as Adyen requires', async () => {
    const psp = await factory.create(testConnection);
    expect(psp.notificationAck).toEqual({ contentType: 'text/plain', body: '[accepted]' });
  });

  it('sends a live connection to its live endpoint prefix', async () => {
    const live = await factory.create(liveConnection);
    await live.createSession(sessionRequest(orderLink('5.00', 'EUR', 'live'), liveConnection));
    expect(adyen.requests.at(-1)).toMatchObject({ method: 'POST', path: '/checkout/v72/paymentLinks' });
    expect(adyen.requests.at(-1)?.headers['x-api-key']).toBe(liveCredentials.api_key);
  });

  it('expires an active link when it ends the session, and says when Adyen refuses to end a completed or expired one', async () => {
    const psp = await factory.create(testConnection);
    const open = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    await expect(psp.expireSession(open)).resolves.toBe('ended');
    expect(adyen.paymentLinks.get(open.id)?.status).toBe('expired');
    expect(JSON.parse(adyen.requests.find((r) => r.method === 'PATCH')?.body ?? '')).toEqual({
      status: 'expired',
    });
    await expect(psp.expireSession(open)).resolves.toBe('refused');
    const { session } = await paid(psp);
    await expect(psp.expireSession(session)).resolves.toBe('refused');
    expect(adyen.paymentLinks.get(session.id)?.status).toBe('completed');
  });

  it('gives up on an Adyen that does not answer within the PSP call budget', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    const psp = await factory.create(testConnection);
    adyen.outage = 'hang';
    try {
      await expect(psp.createSession(sessionRequest(orderLink('5.00'), testConnection))).rejects.toThrow(
        PspCallTimeoutError,
      );
    } finally {
      adyen.outage = 'none';
    }
  });
});
