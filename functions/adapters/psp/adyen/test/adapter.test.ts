import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../../../../../test/support/eventually.ts';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { credentialsProblemOf, factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { detailsPspPageAsks } from '../../../../domain/buyer.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import { InvalidNotificationError, PspNotConfiguredError } from '../../../../domain/errors.ts';
import type { PaymentLink } from '../../../../domain/payment-link.ts';
import type { Mode } from '../../../../domain/principal.ts';
import { type Psp, PspRefusalError } from '../../../../ports/psp.ts';
import { PspCallTimeoutError } from '../../kit/calls.ts';
import { type AdyenPsp, createFactory } from '../adapter.ts';
import { adyen as descriptor } from '../descriptor.ts';
import { type FakeAdyen, startFakeAdyen } from './fake.ts';

const merchantAccount = 'AcmeECOM';
const hmacKey = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const rotatedHmacKey = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90';
const credentials = {
  api_key:
    'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-test',
  merchant_account: merchantAccount,
  hmac_key: hmacKey,
  environment: 'test',
};
const liveCredentials = {
  ...credentials,
  api_key:
    'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-live',
  environment: 'live',
  live_endpoint_url_prefix: '1797a841fbb37ca7-AdyenDemo',
};

let adyen: FakeAdyen;
let untrust: () => void;
const secrets = new Map<string, string>();
let factory: ReturnType<typeof factoryOf<AdyenPsp>>;

const connectionOf = (mode: Mode, id = `pc_adyen${mode}0000000000000000000`) =>
  storedConnection('adyen', mode, id);
const testConnection = connectionOf('test');
const liveConnection = connectionOf('live');

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  adyen = await startFakeAdyen({ apiKeys: [credentials.api_key, liveCredentials.api_key], merchantAccount });
  factory = factoryOf<AdyenPsp>(createFactory, { secrets, apiUrl: adyen.url });
  secrets.set(testConnection.secret_name as string, JSON.stringify(credentials));
  secrets.set(liveConnection.secret_name as string, JSON.stringify(liveCredentials));
});
afterAll(async () => {
  await adyen.stop();
  untrust();
});

async function paid(psp: Psp, value = '10.00') {
  const paymentLink = orderLink(value);
  const session = await psp.createSession(sessionRequest(paymentLink, testConnection));
  const item = adyen.pay(session.id);
  const notifications = await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
  return { paymentLink, session, item, notifications };
}

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

  it('refunds through the Modifications API; the outcome comes from the REFUND notification', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '30.00');
    const request = {
      refundId: 're_ours000000000000000000001',
      linkId: 'pl_ours000000000000000000001',
      paymentReference: item.pspReference,
      amount: { value: '12.5', currency: 'EUR' },
    };
    const refund = await psp.refund(request);
    expect(refund).toEqual({
      reference: expect.stringMatching(/^[0-9A-F]{16}$/),
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'pending',
      failureMessage: null,
    });
    const sent = adyen.requests.at(-1);
    expect(sent).toMatchObject({ method: 'POST', path: `/v72/payments/${item.pspReference}/refunds` });
    expect(sent?.headers['idempotency-key']).toBe(request.refundId);
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      amount: { currency: 'EUR', value: 1250 },
      merchantAccount,
      reference: `${request.linkId}/${request.refundId}`,
    });
    expect(await psp.refund(request)).toEqual(refund);
    expect(adyen.refunds.size).toBe(1);

    expect((await psp.retrieveRefund(refund.reference)).state).toBe('pending');
    const notifications = await psp.verifyNotification(
      adyen.notification([adyen.refundItem(refund.reference, 'succeeded')], { hmacKey }),
      {},
    );
    expect(notifications).toEqual([
      { type: 'REFUND', sessionId: null, refundReference: refund.reference, livemode: false },
    ]);
    // Adyen keeps no metadata on a refund: our ids come back in the notification's merchant reference.
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'succeeded',
      failureMessage: null,
    });
  });

  it('reports a REFUND_FAILED as a failed refund with Adyen’s reason', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '8.00');
    const refund = await psp.refund({
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      paymentReference: item.pspReference,
      amount: { value: '8.00', currency: 'EUR' },
    });
    await psp.verifyNotification(
      adyen.notification([adyen.refundItem(refund.reference, 'failed')], { hmacKey }),
      {},
    );
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      state: 'failed',
      failureMessage: 'Refund Failed',
    });
  });

  it('reports a REFUND with success false, and a REFUNDED_REVERSED after a REFUND, as a failed refund', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '9.00');
    const request = (n: number) => ({
      refundId: `re_ours00000000000000000000${n}`,
      linkId: 'pl_ours000000000000000000003',
      paymentReference: item.pspReference,
      amount: { value: '3.00', currency: 'EUR' },
    });
    const refused = await psp.refund(request(3));
    const reversed = await psp.refund(request(4));

    const notifications = await psp.verifyNotification(
      adyen.notification(
        [
          adyen.refundItem(refused.reference, 'refused'),
          adyen.refundItem(reversed.reference, 'succeeded'),
          adyen.refundItem(reversed.reference, 'reversed'),
        ],
        { hmacKey },
      ),
      {},
    );

    expect(notifications.map(({ refundReference }) => refundReference)).toEqual([
      refused.reference,
      reversed.reference,
      reversed.reference,
    ]);
    expect(await psp.retrieveRefund(refused.reference)).toMatchObject({
      state: 'failed',
      failureMessage: 'Insufficient balance on merchant account',
    });
    expect(await psp.retrieveRefund(reversed.reference)).toMatchObject({
      refundId: 're_ours000000000000000000004',
      state: 'failed',
      failureMessage: 'Adyen reversed the refund: Refund returned by the issuer.',
    });
  });

  it('turns a definite refusal of a refund into PspRefusalError with Adyen’s message', async () => {
    const psp = await factory.create(testConnection);
    const refusal = psp.refund({
      refundId: 're_ours000000000000000000005',
      linkId: 'pl_ours000000000000000000005',
      paymentReference: 'NOSUCHPAYMENT000',
      amount: { value: '1.00', currency: 'EUR' },
    });
    await expect(refusal).rejects.toBeInstanceOf(PspRefusalError);
    await expect(refusal).rejects.toThrow(/^Adyen: Original pspReference required/);
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

describe('Adyen credentials, modes and rotation', () => {
  it('accepts only credentials of the environment matching the connection’s mode', () => {
    const problemOf = (given: unknown, mode: Mode) => credentialsProblemOf(descriptor, given, mode);
    expect(problemOf(credentials, 'test')).toBeUndefined();
    expect(problemOf(liveCredentials, 'live')).toBeUndefined();
    expect(problemOf(credentials, 'live')).toMatch(/live environment/);
    expect(problemOf(liveCredentials, 'test')).toMatch(/test environment/);
    expect(problemOf({ ...liveCredentials, live_endpoint_url_prefix: undefined }, 'live')).toMatch(
      /live_endpoint_url_prefix/,
    );
    expect(problemOf({ ...credentials, hmac_key: 'not hex' }, 'test')).toMatch(/hmac_key/);
    expect(problemOf({ ...credentials, merchant_account: '' }, 'test')).toMatch(/merchant_account/);
  });

  it('refuses to serve a live connection whose stored credentials are of the test environment', async () => {
    const connection = connectionOf('live', 'pc_adyenswapped00000000000000000');
    secrets.set(connection.secret_name as string, JSON.stringify(credentials));
    await expect(factory.create(connection)).rejects.toThrow(PspNotConfiguredError);
  });

  it('accepts the previous HMAC key during a rotation, and only the new one after it', async () => {
    const connection = connectionOf('test', 'pc_adyenrotated00000000000000000');
    secrets.set(connection.secret_name as string, JSON.stringify(credentials));
    const before = await factory.create(connection);
    const session = await before.createSession(sessionRequest(orderLink('5.00'), connection));
    const item = adyen.pay(session.id);

    secrets.set(
      connection.secret_name as string,
      JSON.stringify({ ...credentials, hmac_key: rotatedHmacKey, previous_hmac_key: hmacKey }),
    );
    const during = await factory.create(connection);
    expect(during).not.toBe(before);
    await expect(
      during.verifyNotification(adyen.notification([item], { hmacKey }), {}),
    ).resolves.toHaveLength(1);
    await expect(
      during.verifyNotification(adyen.notification([item], { hmacKey: rotatedHmacKey }), {}),
    ).resolves.toHaveLength(1);

    secrets.set(
      connection.secret_name as string,
      JSON.stringify({ ...credentials, hmac_key: rotatedHmacKey }),
    );
    const after = await factory.create(connection);
    await expect(after.verifyNotification(adyen.notification([item], { hmacKey }), {})).rejects.toThrow(
      InvalidNotificationError,
    );
  });
});
