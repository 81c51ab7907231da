import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPspRuntime } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import { InvalidNotificationError, PspNotConfiguredError } from '../../../../domain/errors.ts';
import { PspRefusalError } from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import { checkCredentials } from '../../kit/credentials.ts';
import type { StripePsp } from '../adapter.ts';
import { stripe } from '../descriptor.ts';
import { type FakeStripe, startFakeStripe } from './fake.ts';

const testKey = 'sk_test_modes_123';
const rotatedTestKey = 'sk_test_rotated_456';
const liveKey = 'sk_live_modes_789';
const webhookSecret = 'whsec_current_111';
const rotatedWebhookSecret = 'whsec_rotated_222';

let testStripe: FakeStripe;
let liveStripe: FakeStripe;
const secrets = new Map<string, string>();

const store = (connection: PspConnection, credentials: Record<string, string>) =>
  secrets.set(connection.secret_name as string, JSON.stringify(credentials));
const factoryFor = (fake: FakeStripe) => {
  const factory = PSP_FACTORIES.stripe(testPspRuntime({ secrets, apiUrl: fake.url }));
  return { create: async (connection: PspConnection) => (await factory.create(connection)) as StripePsp };
};
/** What the descriptor says is wrong with credentials for a connection of `mode`, or undefined. */
const problemOf = (credentials: unknown, mode: 'test' | 'live') => {
  const checked = checkCredentials(stripe, credentials, mode);
  return checked.ok ? undefined : checked.problem;
};

beforeAll(async () => {
  testStripe = await startFakeStripe({ secretKey: testKey, secretKeys: [rotatedTestKey] });
  liveStripe = await startFakeStripe({ secretKey: liveKey });
});
afterAll(async () => {
  await testStripe.stop();
  await liveStripe.stop();
});

describe('Stripe credentials match the connection’s mode', () => {
  it('refuses a test key for a live connection, and a live key for a test one, when they are stored', () => {
    expect(problemOf({ secret_key: testKey, webhook_secret: webhookSecret }, 'live')).toMatch(
      /live-mode Stripe connection needs a secret key sk_live_/,
    );
    expect(problemOf({ secret_key: liveKey, webhook_secret: webhookSecret }, 'test')).toMatch(/sk_test_/);
    expect(problemOf({ secret_key: 'rk_live_abc', webhook_secret: webhookSecret }, 'live')).toBeUndefined();
    expect(problemOf({ secret_key: testKey, webhook_secret: 'secret' }, 'test')).toMatch(/whsec_/);
    expect(
      problemOf({ secret_key: testKey, webhook_secret: webhookSecret, previous_webhook_secret: 'x' }, 'test'),
    ).toMatch(/previous_webhook_secret/);
  });

  it('never serves a live connection with an sk_test_ key found in the secret store', async () => {
    const connection = storedConnection('stripe', 'live', 'pc_stripeswapped000000000000000');
    store(connection, { secret_key: testKey, webhook_secret: webhookSecret });
    await expect(factoryFor(testStripe).create(connection)).rejects.toThrow(PspNotConfiguredError);
    expect(testStripe.requests.some((request) => request.headers.authorization === `Bearer ${testKey}`)).toBe(
      false,
    );
  });

  it('refuses a test-mode event sent to a live connection’s address, however well signed', async () => {
    const connection = storedConnection('stripe', 'live', 'pc_stripelive00000000000000000');
    store(connection, { secret_key: liveKey, webhook_secret: webhookSecret });
    const psp = await factoryFor(liveStripe).create(connection);
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'EUR', 'live'), connection));
    const stored = liveStripe.completeSession(session.id);

    const testEvent = liveStripe.signedEvent('checkout.session.completed', stored, webhookSecret, {
      livemode: false,
    });
    await expect(
      psp.verifyNotification(testEvent.body, { 'stripe-signature': testEvent.signature }),
    ).rejects.toThrow(InvalidNotificationError);
    const liveEvent = liveStripe.signedEvent('checkout.session.completed', stored, webhookSecret);
    await expect(
      psp.verifyNotification(liveEvent.body, { 'stripe-signature': liveEvent.signature }),
    ).resolves.toEqual([
      { type: 'checkout.session.completed', sessionId: session.id, refundReference: null, livemode: true },
    ]);
  });

  it('refuses a session Stripe reports in the other mode', async () => {
    const connection = storedConnection('stripe', 'live', 'pc_stripelive00000000000000000');
    const psp = await factoryFor(liveStripe).create(connection);
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'EUR', 'live'), connection));
    liveStripe.completeSession(session.id).livemode = false;
    await expect(psp.retrieveSession(session.id)).rejects.toThrow(InvalidNotificationError);
  });
});

describe('rotated Stripe credentials', () => {
  it('are used as soon as the stored secret changes, without waiting for the container to recycle', async () => {
    const connection = storedConnection('stripe', 'test', 'pc_striperotated00000000000000');
    store(connection, { secret_key: testKey, webhook_secret: webhookSecret });
    const factory = factoryFor(testStripe);
    const before = await factory.create(connection);
    expect(await factory.create(connection)).toBe(before);
    await before.createSession(sessionRequest(orderLink('20.00', 'EUR', 'test'), connection));
    expect(testStripe.requests.at(-1)?.headers.authorization).toBe(`Bearer ${testKey}`);

    store(connection, { secret_key: rotatedTestKey, webhook_secret: webhookSecret });
    const after = await factory.create(connection);
    await after.createSession(sessionRequest(orderLink('20.00', 'EUR', 'test'), connection));
    expect(testStripe.requests.at(-1)?.headers.authorization).toBe(`Bearer ${rotatedTestKey}`);
  });

  it('accept the previous webhook secret while the rotation overlaps, and only the new one after it', async () => {
    const connection = storedConnection('stripe', 'test', 'pc_stripewebhookrotated000000000');
    store(connection, {
      secret_key: testKey,
      webhook_secret: rotatedWebhookSecret,
      previous_webhook_secret: webhookSecret,
    });
    const factory = factoryFor(testStripe);
    const during = await factory.create(connection);
    const session = await during.createSession(sessionRequest(orderLink('20.00', 'EUR', 'test'), connection));
    const stored = testStripe.sessions.get(session.id)!;
    for (const secret of [webhookSecret, rotatedWebhookSecret]) {
      const event = testStripe.signedEvent('checkout.session.completed', stored, secret);
      await expect(
        during.verifyNotification(event.body, { 'stripe-signature': event.signature }),
      ).resolves.toHaveLength(1);
    }

    store(connection, { secret_key: testKey, webhook_secret: rotatedWebhookSecret });
    const after = await factory.create(connection);
    const old = testStripe.signedEvent('checkout.session.completed', stored, webhookSecret);
    await expect(after.verifyNotification(old.body, { 'stripe-signature': old.signature })).rejects.toThrow(
      InvalidNotificationError,
    );
  });
});

describe('Stripe refunds, through the Refunds API', () => {
  it('refund part of a PaymentIntent with our refund id as idempotency key, then read the outcome back', async () => {
    const connection = storedConnection('stripe', 'test', 'pc_stripe_refunds000000000000000');
    store(connection, { secret_key: testKey, webhook_secret: webhookSecret });
    const psp = await factoryFor(testStripe).create(connection);
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'EUR', 'test'), connection));
    const paymentIntent = testStripe.completeSession(session.id).payment_intent as string;

    const request = {
      refundId: 're_ours000000000000000000001',
      linkId: 'pl_ours000000000000000000001',
      paymentReference: paymentIntent,
      amount: { value: '7.5', currency: 'EUR' },
    };
    const refund = await psp.refund(request);
    expect(refund).toEqual({
      reference: expect.stringMatching(/^re_/),
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'pending',
      failureMessage: null,
    });
    const sent = testStripe.requests.at(-1);
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/refunds' });
    expect(sent?.headers['idempotency-key']).toBe(request.refundId);
    expect(sent?.form).toMatchObject({
      payment_intent: paymentIntent,
      amount: '750',
      'metadata[refund_id]': request.refundId,
      'metadata[link_id]': request.linkId,
    });
    expect(await psp.refund(request)).toEqual(refund);
    expect(testStripe.refunds.size).toBe(1);

    testStripe.settleRefund(refund.reference, 'succeeded');
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'succeeded',
      failureMessage: null,
    });
    const event = testStripe.signedEvent(
      'refund.updated',
      testStripe.refunds.get(refund.reference)!,
      webhookSecret,
    );
    await expect(
      psp.verifyNotification(event.body, { 'stripe-signature': event.signature }),
    ).resolves.toEqual([
      { type: 'refund.updated', sessionId: null, refundReference: refund.reference, livemode: false },
    ]);
  });

  it('report a refund Stripe could not make as failed, with its reason', async () => {
    const connection = storedConnection('stripe', 'test', 'pc_stripe_refunds000000000000000');
    const psp = await factoryFor(testStripe).create(connection);
    const session = await psp.createSession(sessionRequest(orderLink('5.00', 'EUR', 'test'), connection));
    const paymentIntent = testStripe.completeSession(session.id).payment_intent as string;
    const refund = await psp.refund({
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      paymentReference: paymentIntent,
      amount: { value: '5.00', currency: 'EUR' },
    });
    testStripe.settleRefund(refund.reference, 'failed');
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      state: 'failed',
      failureMessage: 'Stripe: expired_or_canceled_card',
    });
    // A failed refund's amount is refundable again; more than the payment is a definite refusal.
    const refusal = psp.refund({
      refundId: 're_ours000000000000000000003',
      linkId: 'pl_ours000000000000000000002',
      paymentReference: paymentIntent,
      amount: { value: '5.01', currency: 'EUR' },
    });
    await expect(refusal).rejects.toBeInstanceOf(PspRefusalError);
    await expect(refusal).rejects.toThrow(/^Stripe: .*greater than unrefunded/);
  });
});
