// @module-tag waits: a hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { createHmac } from 'node:crypto';
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
import type { PaystackPsp } from '../adapter.ts';
import { paystack } from '../descriptor.ts';
import { type FakePaystack, PAYSTACK_FAKE, startFakePaystack } from './fake.ts';

/**
 * Paystack's adapter (our own HTTPS client) against its fake, held to PaystackOSS/openapi: every request the
 * adapter sends and every answer the fake gives conforms to the trimmed document (`violations` stays empty).
 */
const TEST_KEY = PAYSTACK_FAKE.credentials.secret_key;
const LIVE_KEY = 'sk_live_fake0paystack0key0000000000000000000';
const connection = storedConnection('paystack', 'test', 'pc_paystacktest00000000000001');
const liveConnection = storedConnection('paystack', 'live', 'pc_paystacklive00000000000001');
let fake: FakePaystack;
let untrust: () => void;
let psp: PaystackPsp;
let live: PaystackPsp;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await startFakePaystack({ secretKeys: [TEST_KEY, LIVE_KEY] });
  const secrets = new Map([
    [connection.secret_name as string, JSON.stringify({ secret_key: TEST_KEY })],
    [liveConnection.secret_name as string, JSON.stringify({ secret_key: LIVE_KEY })],
  ]);
  const factory = factoryOf<PaystackPsp>(PSP_FACTORIES.paystack, { secrets, apiUrl: fake.apiUrl });
  psp = await factory.create(connection);
  live = await factory.create(liveConnection);
});
afterAll(async () => {
  fake.outage = 'none';
  await fake.stop();
  untrust();
});

const naira = (value: string) => orderLink(value, 'NGN');
const withEmail = (request: ReturnType<typeof sessionRequest>) => ({
  ...request,
  buyer: { email: 'ada@example.com' },
});

describe('a Paystack session', () => {
  it('initializes a transaction: integer subunits, our reference without "_", the return, our ids, the channels', async () => {
    const link = naira('5000.00');
    const paymentId = newPaymentId(new Date());
    const request = {
      ...withEmail(sessionRequest(link, connection, paymentId)),
      paymentMethods: ['card' as const, 'bank_transfer' as const, 'ussd' as const, 'mobile_money' as const],
    };
    const session = await psp.createSession(request);
    expect(session.id).toBe(paymentId.replace('_', '-'));
    expect(session.id).toMatch(/^[A-Za-z0-9.=-]+$/);
    expect(session.url).toMatch(/^https:\/\/checkout\.paystack\.com\/[0-9a-f]+$/);
    expect(session.expires_at).toBe(request.expiresAt.toISOString());
    expect(JSON.parse(fake.requests.at(-1)?.body ?? '')).toEqual({
      email: 'ada@example.com',
      amount: 500000,
      currency: 'NGN',
      reference: session.id,
      callback_url: request.successUrl,
      metadata: { link_id: link.id, payment_id: paymentId, mode: 'test', cancel_action: request.cancelUrl },
      channels: ['card', 'bank_transfer', 'ussd', 'mobile_money'],
    });
    expect(fake.violations).toEqual([]);
  });

  it('takes a prefilled e-mail, and is refused without a call when there is none or the currency is not Paystack’s', async () => {
    const before = fake.requests.length;
    const noEmail = psp.createSession(sessionRequest(naira('10.00'), connection));
    await expect(noEmail).rejects.toMatchObject({ kind: 'refused', message: /e-mail/ });
    const euros = psp.createSession(withEmail(sessionRequest(orderLink('10.00', 'EUR'), connection)));
    await expect(euros).rejects.toMatchObject({ kind: 'refused', message: /does not take EUR/ });
    expect(fake.requests.length).toBe(before);
    const prefilled = {
      ...sessionRequest(naira('10.00'), connection),
      references: { prefilled_email: 'p@example.com' },
    };
    await psp.createSession(prefilled);
    expect(JSON.parse(fake.requests.at(-1)?.body ?? '').email).toBe('p@example.com');
  });

  it('is never initialized twice for one payment: the same reference is refused as a duplicate', async () => {
    const request = withEmail(sessionRequest(naira('20.00'), connection));
    await psp.createSession(request);
    await expect(psp.createSession(request)).rejects.toMatchObject({
      kind: 'refused',
      message: /Duplicate Transaction Reference/,
    });
  });

  it('reads the transaction back, pending until paid, then paid at its amount and currency with our ids and its fees', async () => {
    const request = withEmail(sessionRequest(naira('150.75'), connection));
    const session = await psp.createSession(request);
    const pending = await psp.retrieveSession(session.id);
    expect(pending).toMatchObject({ state: 'pending', failure: null });
    expect(pending.fee).toBeUndefined();
    fake.pay(session.id).fees = 226;
    expect(await psp.retrieveSession(session.id)).toEqual({
      id: session.id,
      paymentId: request.paymentId,
      linkId: request.link.id,
      state: 'succeeded',
      failure: null,
      paymentReference: session.id,
      amount: { value: '150.75', currency: 'NGN' },
      livemode: false,
      fee: { fee: { value: '2.26', currency: 'NGN' } },
    });
    fake.transactions.get(session.id)!.fees = null;
    expect((await psp.retrieveSession(session.id)).fee).toBeUndefined();
    fake.transactions.get(session.id)!.amount = 1;
    expect((await psp.retrieveSession(session.id)).amount).toEqual({ value: '0.01', currency: 'NGN' });
    expect(fake.violations).toEqual([]);
  });

  it('reports a declined transaction failed, with the bank’s words', async () => {
    const session = await psp.createSession(withEmail(sessionRequest(naira('30.00'), connection)));
    fake.pay(session.id, 'failed');
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'failed',
      failure: { code: 'declined', message: 'Paystack: Declined' },
    });
  });

  it('cannot be ended: it declares no such capability and has none', () => {
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(paystack));
    expect(paystack.capabilities).not.toContain('ends_sessions');
    expect(paystack.capabilities).not.toContain('captures_later');
  });
});

describe('Paystack notifications', () => {
  it('verify only with the hex HMAC-SHA512 of the raw body keyed with the secret key', async () => {
    const session = await psp.createSession(withEmail(sessionRequest(naira('40.00'), connection)));
    const paid = fake.pay(session.id);
    const { body, signature } = fake.signedEvent('charge.success', { ...paid, domain: 'test' }, TEST_KEY);
    expect(signature).toBe(createHmac('sha512', TEST_KEY).update(body).digest('hex'));
    expect(await psp.verifyNotification(body, { 'x-paystack-signature': signature })).toEqual([
      { type: 'charge.success', sessionId: session.id, refundReference: null, livemode: false },
    ]);
    const forged = body.replace('"amount":4000', '"amount":1');
    for (const headers of [
      { 'x-paystack-signature': signature.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')) },
      { 'x-paystack-signature': fake.signedEvent('charge.success', paid, LIVE_KEY).signature },
      { 'x-paystack-signature': createHmac('sha512', 'sk_test_other').update(body).digest('hex') },
      {},
    ]) {
      await expect(psp.verifyNotification(body, headers)).rejects.toBeInstanceOf(InvalidNotificationError);
    }
    await expect(
      psp.verifyNotification(forged, { 'x-paystack-signature': signature }),
    ).rejects.toBeInstanceOf(InvalidNotificationError);
  });

  it('refuses an event of the other mode, even signed with the connection’s key', async () => {
    const event = fake.signedEvent('charge.success', { reference: 'pay-x', domain: 'live' }, TEST_KEY);
    await expect(
      psp.verifyNotification(event.body, { 'x-paystack-signature': event.signature }),
    ).rejects.toBeInstanceOf(InvalidNotificationError);
    const liveEvent = fake.signedEvent('charge.success', { reference: 'pay-x', domain: 'live' }, LIVE_KEY);
    expect(
      await live.verifyNotification(liveEvent.body, { 'x-paystack-signature': liveEvent.signature }),
    ).toEqual([{ type: 'charge.success', sessionId: 'pay-x', refundReference: null, livemode: true }]);
  });
});

describe('Paystack refunds', () => {
  it('refunds part of a paid transaction with our ids in the merchant note, and reads its outcome', async () => {
    const session = await psp.createSession(withEmail(sessionRequest(naira('100.00'), connection)));
    fake.pay(session.id);
    const request = {
      refundId: 're_paystack0000000000000000001',
      linkId: 'pl_paystack0000000000000000001',
      paymentReference: session.id,
      amount: { value: '25.50', currency: 'NGN' },
    };
    const refund = await psp.refund(request);
    expect(refund).toMatchObject({ refundId: request.refundId, linkId: request.linkId, state: 'pending' });
    expect(JSON.parse(fake.requests.at(-1)?.body ?? '')).toEqual({
      transaction: session.id,
      amount: 2550,
      currency: 'NGN',
      merchant_note: `${request.refundId} ${request.linkId}`,
    });
    fake.settleRefund(Number(refund.reference), 'processed');
    expect(await psp.retrieveRefund(refund.reference)).toMatchObject({ state: 'succeeded' });
    const event = fake.signedEvent(
      'refund.processed',
      fake.refundEventData(fake.refunds.get(Number(refund.reference))!),
      TEST_KEY,
    );
    expect(await psp.verifyNotification(event.body, { 'x-paystack-signature': event.signature })).toEqual([
      { type: 'refund.processed', sessionId: null, refundReference: refund.reference, livemode: false },
    ]);
    expect(fake.violations).toEqual([]);
  });

  it('is refused (nothing made) when Paystack refuses it, and never asked again after a lost answer', async () => {
    await expect(
      psp.refund({
        refundId: 're_paystack0000000000000000002',
        linkId: 'pl_x',
        paymentReference: 'pay-unknown',
        amount: { value: '1.00', currency: 'NGN' },
      }),
    ).rejects.toMatchObject({ kind: 'refused' });
    expect(psp.idempotencyWindowMs).toBe(0);
  });
});

describe('Paystack failing', () => {
  it('a refused key is refused credentials; a 500 and no answer in time are outages', async () => {
    const revoked = storedConnection('paystack', 'test', 'pc_paystackrevoked000000000001');
    const secrets = new Map([
      [revoked.secret_name as string, JSON.stringify({ secret_key: 'sk_test_revoked' })],
    ]);
    const other = await factoryOf<PaystackPsp>(PSP_FACTORIES.paystack, {
      secrets,
      apiUrl: fake.apiUrl,
    }).create(revoked);
    const request = () => withEmail(sessionRequest(naira('10.00'), connection));
    await expect(other.createSession(request())).rejects.toMatchObject({ kind: 'credentials_rejected' });
    fake.outage = 'error';
    const failed = await psp.createSession(request()).catch((error: unknown) => error);
    expect(pspFailureOf(failed)?.kind).toBe('unavailable');
    fake.outage = 'hang';
    await expect(psp.retrieveSession('pay-anything')).rejects.toMatchObject({ kind: 'unavailable' });
    fake.outage = 'none';
  });
});

describe('Paystack credentials', () => {
  it('refuse a live key on a test connection and the reverse, and anything but a secret key', () => {
    expect(credentialsProblemOf(paystack, { secret_key: TEST_KEY }, 'test')).toBeUndefined();
    expect(credentialsProblemOf(paystack, { secret_key: LIVE_KEY }, 'live')).toBeUndefined();
    expect(credentialsProblemOf(paystack, { secret_key: LIVE_KEY }, 'test')).toMatch(/sk_test_/);
    expect(credentialsProblemOf(paystack, { secret_key: TEST_KEY }, 'live')).toMatch(/sk_live_/);
    expect(credentialsProblemOf(paystack, { secret_key: 'pk_test_abc' }, 'test')).toMatch(/sk_test_/);
  });
});
