// @module-tag waits: a hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import {
  credentialsProblemOf,
  declaredInterfaces,
  factoryOf,
  interfaceCapabilities,
} from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import { newPaymentId } from '../../../../domain/payment.ts';
import { pspFailureOf } from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { XenditPsp } from '../adapter.ts';
import { xendit } from '../descriptor.ts';
import { validCallbackToken } from '../notifications.ts';
import { type FakeXendit, startFakeXendit, XENDIT_FAKE } from './fake.ts';

/**
 * Xendit's adapter (our own HTTPS client) against its fake, held to Xendit's published fragments: every request the
 * adapter sends and every answer the fake gives conforms to the trimmed document (`violations` stays empty).
 */
const { secret_key: TEST_KEY, callback_token: TOKEN } = XENDIT_FAKE.credentials;
const LIVE_KEY = 'xnd_production_fake0xendit0key000000000000000000';
const connection = storedConnection('xendit', 'test', 'pc_xendittest000000000000001');
const liveConnection = storedConnection('xendit', 'live', 'pc_xenditlive000000000000001');
let fake: FakeXendit;
let untrust: () => void;
let psp: XenditPsp;
let live: XenditPsp;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await startFakeXendit({ secretKeys: [TEST_KEY, LIVE_KEY] });
  const secrets = new Map([
    [connection.secret_name as string, JSON.stringify(XENDIT_FAKE.credentials)],
    [
      liveConnection.secret_name as string,
      JSON.stringify({ secret_key: LIVE_KEY, callback_token: 'live0token' }),
    ],
  ]);
  const factory = factoryOf<XenditPsp>(PSP_FACTORIES.xendit, { secrets, apiUrl: fake.apiUrl });
  psp = await factory.create(connection);
  live = await factory.create(liveConnection);
});
afterAll(async () => {
  fake.outage = 'none';
  await fake.stop();
  untrust();
});

const rupiah = (value: string) => orderLink(value, 'IDR');
const lastBody = () => JSON.parse(fake.requests.at(-1)?.body ?? '') as Record<string, unknown>;
const opened = async (value = '150000.00', currency = 'IDR') => {
  const request = sessionRequest(orderLink(value, currency), connection);
  return { request, session: await psp.createSession(request) };
};

describe('a Xendit session', () => {
  it('is a PAY session in PAYMENT_LINK mode: our reference, the amount in whole rupiah, the country, the returns, the expiry, our ids, the channels', async () => {
    const link = rupiah('150000.00');
    const paymentId = newPaymentId(new Date());
    const request = {
      ...sessionRequest(link, connection, paymentId, 'id-ID'),
      paymentMethods: ['qris' as const, 'ovo' as const, 'dana' as const, 'bank_transfer' as const],
    };
    const session = await psp.createSession(request);
    expect(session.id).toMatch(/^ps-[0-9a-f]{24}$/);
    expect(session.url).toBe(`https://checkout-staging.xendit.co/sessions/${session.id}`);
    expect(new URL(session.url).origin).toBe(psp.checkoutOrigin);
    expect(session.expires_at).toBe(request.expiresAt.toISOString());
    expect(lastBody()).toEqual({
      reference_id: paymentId,
      session_type: 'PAY',
      mode: 'PAYMENT_LINK',
      amount: 150000,
      currency: 'IDR',
      country: 'ID',
      expires_at: request.expiresAt.toISOString(),
      success_return_url: request.successUrl,
      cancel_return_url: request.cancelUrl,
      locale: 'id',
      metadata: { link_id: link.id, payment_id: paymentId, mode: 'test' },
      description: 'Order 1001',
      allowed_payment_channels: [
        'QRIS',
        'OVO',
        'DANA',
        'BCA_VIRTUAL_ACCOUNT',
        'BNI_VIRTUAL_ACCOUNT',
        'BRI_VIRTUAL_ACCOUNT',
        'MANDIRI_VIRTUAL_ACCOUNT',
        'PERMATA_VIRTUAL_ACCOUNT',
        'BSI_VIRTUAL_ACCOUNT',
      ],
    });
    expect(fake.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${TEST_KEY}:`).toString('base64')}`,
    );
    expect(fake.violations).toEqual([]);
  });

  it('takes each market’s currency with its country and decimals, and is refused without a call where Xendit would refuse', async () => {
    const sent: unknown[] = [];
    for (const [value, currency] of [
      ['250.75', 'PHP'],
      ['99.50', 'THB'],
      ['200000', 'VND'],
      ['45.90', 'MYR'],
      ['12.30', 'SGD'],
    ] as const) {
      await opened(value, currency);
      const { amount, country } = lastBody();
      sent.push([amount, currency, country]);
    }
    expect(sent).toEqual([
      [250.75, 'PHP', 'PH'],
      [99.5, 'THB', 'TH'],
      [200000, 'VND', 'VN'],
      [45.9, 'MYR', 'MY'],
      [12.3, 'SGD', 'SG'],
    ]);
    const before = fake.requests.length;
    await expect(opened('150000.50', 'IDR')).rejects.toMatchObject({
      kind: 'refused',
      message: /takes no decimals/,
    });
    await expect(opened('10.00', 'EUR')).rejects.toMatchObject({
      kind: 'refused',
      message: /does not take EUR/,
    });
    await expect(opened('10.00', 'USD')).rejects.toMatchObject({ kind: 'refused' });
    expect(fake.requests.length).toBe(before);
    expect(fake.violations).toEqual([]);
  });

  it('speaks the buyer’s language by its two-letter code, and none that has no such code', async () => {
    await psp.createSession(sessionRequest(rupiah('10000'), connection, undefined, 'th'));
    expect(lastBody().locale).toBe('th');
    await psp.createSession(sessionRequest(rupiah('10000'), connection, undefined, 'fil-PH'));
    expect(lastBody()).not.toHaveProperty('locale');
  });

  it('is never made twice for one payment: the same reference_id is refused', async () => {
    const request = sessionRequest(rupiah('20000.00'), connection);
    await psp.createSession(request);
    await expect(psp.createSession(request)).rejects.toMatchObject({
      kind: 'refused',
      message: /DUPLICATE_ERROR/,
    });
  });

  it('is read back pending while ACTIVE (a declined attempt too), then paid at its amount and currency with our ids', async () => {
    const { request, session } = await opened('175000.00');
    expect(await psp.retrieveSession(session.id)).toMatchObject({ state: 'pending', failure: null });
    fake.decline(session.id);
    expect(await psp.retrieveSession(session.id)).toMatchObject({ state: 'pending' });
    const paid = fake.pay(session.id);
    expect(await psp.retrieveSession(session.id)).toEqual({
      id: session.id,
      paymentId: request.paymentId,
      linkId: request.link.id,
      state: 'succeeded',
      failure: null,
      paymentReference: paid.payment_request_id,
      amount: { value: '175000.00', currency: 'IDR' },
      livemode: false,
    });
    paid.amount = 1000;
    expect((await psp.retrieveSession(session.id)).amount).toEqual({ value: '1000.00', currency: 'IDR' });
    // Rupiah with decimals is no amount Xendit could have charged: never taken as paid.
    paid.amount = 1000.5;
    expect((await psp.retrieveSession(session.id)).amount).toBeNull();
    paid.amount = 1000;
    expect(fake.violations).toEqual([]);
  });

  it('is canceled early while ACTIVE; a canceled, expired or completed one is refused, and read so', async () => {
    const { session } = await opened();
    expect(await psp.expireSession(session)).toBe('ended');
    expect(fake.sessions.get(session.id)?.status).toBe('CANCELED');
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'canceled',
      failure: { code: 'canceled' },
    });
    expect(await psp.expireSession(session)).toBe('refused');
    const paid = await opened();
    fake.pay(paid.session.id);
    expect(await psp.expireSession(paid.session)).toBe('refused');
    const lapsed = await opened();
    const held = fake.sessions.get(lapsed.session.id);
    if (held) held.status = 'EXPIRED';
    expect(await psp.retrieveSession(lapsed.session.id)).toMatchObject({ state: 'expired' });
    expect(fake.violations).toEqual([]);
  });

  it('of the other mode is not found by the key: a live key reads no test session', async () => {
    const { session } = await opened();
    await expect(live.retrieveSession(session.id)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(live.checkoutOrigin).toBe('https://checkout.xendit.co');
  });
});

describe('Xendit notifications', () => {
  it('are taken only with the connection’s verification token, then name the session or the refund to read', async () => {
    const { session } = await opened();
    fake.pay(session.id);
    const genuine = fake.sessionEvent('payment_session.completed', session.id, TOKEN);
    expect(await psp.verifyNotification(genuine.body, genuine.headers)).toEqual([
      { type: 'payment_session.completed', sessionId: session.id, refundReference: null, livemode: false },
    ]);
    for (const token of [`${TOKEN.slice(0, -1)}x`, `${TOKEN}x`, 'short', '']) {
      const forged = fake.sessionEvent('payment_session.completed', session.id, token);
      await expect(psp.verifyNotification(forged.body, forged.headers)).rejects.toBeInstanceOf(
        InvalidNotificationError,
      );
    }
    const { 'x-callback-token': _token, ...without } = genuine.headers;
    await expect(psp.verifyNotification(genuine.body, without)).rejects.toBeInstanceOf(
      InvalidNotificationError,
    );
    await expect(psp.verifyNotification('not json', genuine.headers)).rejects.toBeInstanceOf(
      InvalidNotificationError,
    );
    const other = JSON.stringify({ event: 'payment.failure', data: { id: 'py-1' } });
    expect(await psp.verifyNotification(other, genuine.headers)).toEqual([
      { type: 'payment.failure', sessionId: null, refundReference: null, livemode: false },
    ]);
  });

  it('compare the token whole, whatever its length', () => {
    expect(validCallbackToken(TOKEN, TOKEN)).toBe(true);
    expect(validCallbackToken(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(validCallbackToken(undefined, TOKEN)).toBe(false);
  });
});

describe('a Xendit refund', () => {
  it('refunds part of the payment request with our refund id as reference and idempotency key, pending until settled', async () => {
    const { request, session } = await opened('500000.00');
    const paid = fake.pay(session.id);
    const status = await psp.retrieveSession(session.id);
    const refundRequest = {
      refundId: 're_xendit0000000000000000001',
      linkId: request.link.id,
      paymentReference: status.paymentReference as string,
      amount: { value: '125000.00', currency: 'IDR' },
    };
    const refund = await psp.refund(refundRequest);
    expect(lastBody()).toEqual({
      payment_request_id: paid.payment_request_id,
      reference_id: 're_xendit0000000000000000001',
      amount: 125000,
      currency: 'IDR',
      reason: 'REQUESTED_BY_CUSTOMER',
      metadata: { refund_id: 're_xendit0000000000000000001', link_id: request.link.id },
    });
    expect(fake.requests.at(-1)?.headers['idempotency-key']).toBe('re_xendit0000000000000000001');
    expect(refund).toEqual({
      reference: expect.stringMatching(/^rfd-/),
      refundId: 're_xendit0000000000000000001',
      linkId: request.link.id,
      state: 'pending',
      failureMessage: null,
    });
    expect((await psp.refund(refundRequest)).reference).toBe(refund.reference);
    fake.settleRefund(refund.reference, 'SUCCEEDED');
    expect(await psp.retrieveRefund(refund.reference)).toMatchObject({ state: 'succeeded' });
    const event = fake.refundEvent(refund.reference, TOKEN);
    expect(await psp.verifyNotification(event.body, event.headers)).toEqual([
      { type: 'refund.succeeded', sessionId: null, refundReference: refund.reference, livemode: false },
    ]);
    await expect(
      psp.refund({
        ...refundRequest,
        refundId: 're_xendit0000000000000000002',
        amount: { value: '400000', currency: 'IDR' },
      }),
    ).rejects.toMatchObject({ kind: 'refused', message: /REFUND_AMOUNT_EXCEEDED/ });
    fake.settleRefund(refund.reference, 'FAILED');
    expect(await psp.retrieveRefund(refund.reference)).toMatchObject({
      state: 'failed',
      failureMessage: 'Xendit: the refund REFUND_FAILED',
    });
    expect(psp.idempotencyWindowMs).toBe(0);
    expect(fake.violations).toEqual([]);
  });

  it('of a payment request Xendit does not know is refused, nothing made', async () => {
    await expect(
      psp.refund({
        refundId: 're_xendit0000000000000000003',
        linkId: 'pl_x',
        paymentReference: 'pr-unknown',
        amount: { value: '1000', currency: 'IDR' },
      }),
    ).rejects.toMatchObject({ kind: 'refused' });
    expect(fake.violations).toEqual([]);
  });
});

describe('Xendit failing', () => {
  it('a refused key is refused credentials; a 500 and no answer in time are outages', async () => {
    const revoked = storedConnection('xendit', 'test', 'pc_xenditrevoked0000000000001');
    const secrets = new Map([
      [
        revoked.secret_name as string,
        JSON.stringify({ secret_key: 'xnd_development_revoked', callback_token: 't' }),
      ],
    ]);
    const other = await factoryOf<XenditPsp>(PSP_FACTORIES.xendit, { secrets, apiUrl: fake.apiUrl }).create(
      revoked,
    );
    const request = () => sessionRequest(rupiah('10000'), connection);
    await expect(other.createSession(request())).rejects.toMatchObject({ kind: 'credentials_rejected' });
    fake.outage = 'error';
    const failed = await psp.createSession(request()).catch((error: unknown) => error);
    expect(pspFailureOf(failed)?.kind).toBe('unavailable');
    fake.outage = 'hang';
    await expect(psp.retrieveSession('ps-000000000000000000000000')).rejects.toMatchObject({
      kind: 'unavailable',
    });
    fake.outage = 'none';
    expect(fake.violations).toEqual([]);
  });
});

describe('Xendit’s descriptor', () => {
  it('refuses a production key on a test connection and the reverse, and anything but a secret key', () => {
    const credentials = (secret_key: string) => ({ secret_key, callback_token: TOKEN });
    expect(credentialsProblemOf(xendit, credentials(TEST_KEY), 'test')).toBeUndefined();
    expect(credentialsProblemOf(xendit, credentials(LIVE_KEY), 'live')).toBeUndefined();
    expect(credentialsProblemOf(xendit, credentials(LIVE_KEY), 'test')).toMatch(/xnd_development_/);
    expect(credentialsProblemOf(xendit, credentials(TEST_KEY), 'live')).toMatch(/xnd_production_/);
    expect(credentialsProblemOf(xendit, credentials('xnd_public_development_abc'), 'test')).toMatch(
      /secret_key/,
    );
    expect(credentialsProblemOf(xendit, { secret_key: TEST_KEY }, 'test')).toMatch(/callback_token/);
  });

  it('declares the capabilities its adapter has', () => {
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(xendit));
  });
});
