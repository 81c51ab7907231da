// @module-tag waits: Mollie's SDK pauses 2 s between its own retries of a 5xx; a hang waits out the call budget (test/support/sequencer.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../../../../../test/support/eventually.ts';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { credentialsProblemOf, factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import { InvalidNotificationError, PspNotConfiguredError } from '../../../../domain/errors.ts';
import type { Mode } from '../../../../domain/principal.ts';
import { type Psp, PspOutageError, PspRefusalError } from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import { PspCallTimeoutError } from '../../kit/calls.ts';
import type { MolliePsp } from '../adapter.ts';
import { mollie as mollieDescriptor } from '../descriptor.ts';
import { type FakeMollie, startFakeMollie } from './fake.ts';

const testKey = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
const liveKey = 'live_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
const rotatedTestKey = 'test_Rotated7LxsDOtmnkVtjNVWXLSlXsM';

let mollie: FakeMollie;
let untrust: () => void;
const secrets = new Map<string, string>();
let factory: ReturnType<typeof factoryOf<MolliePsp>>;

const connectionOf = (mode: Mode, id = `pc_mollie${mode}000000000000000000`) =>
  storedConnection('mollie', mode, id);
const testConnection = connectionOf('test');
const liveConnection = connectionOf('live');

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  mollie = await startFakeMollie({ apiKeys: [testKey, liveKey, rotatedTestKey] });
  factory = factoryOf<MolliePsp>(PSP_FACTORIES.mollie, { secrets, apiUrl: mollie.apiEndpoint });
  secrets.set(testConnection.secret_name as string, JSON.stringify({ api_key: testKey }));
  secrets.set(liveConnection.secret_name as string, JSON.stringify({ api_key: liveKey }));
});
afterAll(async () => {
  await mollie.stop();
  untrust();
});

async function paidPayment(psp: Psp, value = '10.00') {
  const session = await psp.createSession(sessionRequest(orderLink(value), testConnection));
  mollie.setStatus(session.id, 'paid');
  return session;
}

describe('the Mollie adapter, through @mollie/api-client against a Mollie-speaking server', () => {
  it('creates a payment with the exact amount, our URLs, webhook and ids, and returns its hosted checkout', async () => {
    const psp = await factory.create(testConnection);
    const paymentLink = orderLink('10.5');
    const session = await psp.createSession(
      sessionRequest(paymentLink, testConnection, 'pay_molliecreate00000000000000'),
    );

    const request = mollie.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', path: '/v2/payments' });
    expect(request?.headers.authorization).toBe(`Bearer ${testKey}`);
    expect(request?.headers['idempotency-key']).toBe('pay_molliecreate00000000000000');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      amount: { currency: 'EUR', value: '10.50' },
      description: 'Order 1001',
      redirectUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://pay.example/checkout/pl_x?canceled=1',
      webhookUrl: `https://pay.example/psp/mollie/notifications/${testConnection.id}`,
      locale: 'en_US',
      metadata: { link_id: paymentLink.id, payment_id: 'pay_molliecreate00000000000000' },
    });
    const stored = mollie.payments.get(session.id);
    expect(session).toEqual({
      provider: 'mollie',
      connection_id: testConnection.id,
      payment_id: 'pay_molliecreate00000000000000',
      id: expect.stringMatching(/^tr_/),
      url: `https://www.mollie.com/checkout/select-method/${session.id.slice(3)}`,
      expires_at: stored?.expiresAt,
    });
    expect(psp.checkoutOrigin).toBe(new URL(session.url).origin);
  });

  it("sends the address's e-mail as the billing e-mail and the buyer's reference in metadata, and reads no buyer back", async () => {
    const psp = await factory.create(testConnection);
    const paymentLink = orderLink('10.00');
    const session = await psp.createSession({
      ...sessionRequest(paymentLink, testConnection, 'pay_molliereferences000000000'),
      references: { client_reference_id: 'crm-5', prefilled_email: 'mo@example.com' },
    });
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '')).toMatchObject({
      billingAddress: { email: 'mo@example.com' },
      metadata: {
        link_id: paymentLink.id,
        payment_id: 'pay_molliereferences000000000',
        client_reference_id: 'crm-5',
      },
    });
    expect(mollie.violations).toEqual([]);
    mollie.setStatus(session.id, 'paid');
    // Mollie's page asked nothing: its billing e-mail is only what we sent.
    expect((await psp.retrieveSession(session.id)).buyer).toBeUndefined();
  });

  it('answers a webhook by fetching the payment: paid, with our ids echoed back', async () => {
    const psp = await factory.create(testConnection);
    const paymentLink = orderLink('25.00');
    const session = await psp.createSession(
      sessionRequest(paymentLink, testConnection, 'pay_molliepaid0000000000000000'),
    );
    mollie.setStatus(session.id, 'paid');

    const notifications = await psp.verifyNotification(mollie.webhookBody(session.id), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(notifications).toEqual([
      { type: 'payment.paid', sessionId: session.id, refundReference: null, livemode: false },
    ]);
    const fetchesBefore = mollie.requests.filter((r) => r.method === 'GET').length;
    const status = await psp.retrieveSession(session.id);
    // The payment the notification fetched is used, not fetched twice in one invocation.
    expect(mollie.requests.filter((r) => r.method === 'GET').length).toBe(fetchesBefore);
    expect(status).toEqual({
      id: session.id,
      paymentId: 'pay_molliepaid0000000000000000',
      linkId: paymentLink.id,
      state: 'succeeded',
      failure: null,
      paymentReference: session.id,
      amount: { value: '25.00', currency: 'EUR' },
      livemode: false,
    });
  });

  it('sends amounts with exactly the currency’s decimals', async () => {
    const psp = await factory.create(testConnection);
    await psp.createSession(sessionRequest(orderLink('500', 'JPY'), testConnection));
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '').amount).toEqual({ currency: 'JPY', value: '500' });
    await psp.createSession(sessionRequest(orderLink('7', 'EUR'), testConnection));
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '').amount).toEqual({ currency: 'EUR', value: '7.00' });
    await psp.createSession(sessionRequest(orderLink('0.05', 'EUR'), testConnection));
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '').amount).toEqual({ currency: 'EUR', value: '0.05' });
  });

  it('maps failed, canceled and expired payments to failed attempts with the documented codes', async () => {
    const psp = await factory.create(testConnection);
    const outcomes = { failed: 'declined', canceled: 'canceled', expired: 'expired' } as const;
    for (const [status, code] of Object.entries(outcomes)) {
      const session = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
      mollie.setStatus(session.id, status as 'failed');
      const result = await psp.retrieveSession(session.id);
      expect(result.state).toBe(status === 'failed' ? 'failed' : status);
      expect(result.failure?.code).toBe(code);
      expect(result.paymentReference).toBeNull();
    }
    const open = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    expect((await psp.retrieveSession(open.id)).state).toBe('pending');
  });

  it('refuses a webhook that is not a payment id, or names a payment this key cannot see', async () => {
    const psp = await factory.create(testConnection);
    await expect(psp.verifyNotification('id=ord_123', {})).rejects.toThrow(InvalidNotificationError);
    await expect(psp.verifyNotification('{"id":"tr_1"}', {})).rejects.toThrow(InvalidNotificationError);
    await expect(psp.verifyNotification('id=tr_doesnotexist', {})).rejects.toThrow(InvalidNotificationError);
  });

  it('refuses a payment Mollie reports in the other mode, in a notification and in a status', async () => {
    const psp = await factory.create(testConnection);
    const session = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    mollie.setStatus(session.id, 'paid');
    mollie.payments.get(session.id)!.mode = 'live';
    await expect(psp.verifyNotification(mollie.webhookBody(session.id), {})).rejects.toThrow(
      InvalidNotificationError,
    );
    await expect(psp.retrieveSession(session.id)).rejects.toThrow(InvalidNotificationError);
  });

  it('does not see another mode’s payments: a live payment named to a test connection is refused', async () => {
    const live = await factory.create(liveConnection);
    const livePayment = await live.createSession(
      sessionRequest(orderLink('5.00', 'EUR', 'live'), liveConnection),
    );
    mollie.setStatus(livePayment.id, 'paid');
    const test = await factory.create(testConnection);
    await expect(test.verifyNotification(mollie.webhookBody(livePayment.id), {})).rejects.toThrow(
      InvalidNotificationError,
    );
  });

  it('cancels an open payment when it ends the session, and says when Mollie refuses to cancel one', async () => {
    const psp = await factory.create(testConnection);
    const open = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    await expect(psp.expireSession(open)).resolves.toBe('ended');
    expect(mollie.payments.get(open.id)?.status).toBe('canceled');
    expect(mollie.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v2/payments/${open.id}` });

    const paid = await paidPayment(psp);
    await expect(psp.expireSession(paid)).resolves.toBe('refused');
    expect(mollie.payments.get(paid.id)?.status).toBe('paid');
    // Ending twice is not an error either.
    await expect(psp.expireSession(open)).resolves.toBe('refused');
  });

  it('refunds part of a paid payment with our refund id as idempotency key, then reads the refund back', async () => {
    const psp = await factory.create(testConnection);
    const paid = await paidPayment(psp, '30.00');
    const request = {
      refundId: 're_ours000000000000000000001',
      linkId: 'pl_ours000000000000000000001',
      paymentReference: paid.id,
      amount: { value: '12.50', currency: 'EUR' },
    };
    const refund = await psp.refund(request);
    expect(refund).toEqual({
      reference: expect.stringMatching(/^tr_\w+\/re_\w+$/),
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'pending',
      failureMessage: null,
    });
    expect(mollie.requests.at(-1)?.headers['idempotency-key']).toBe('re_ours000000000000000000001');
    // Mollie's API requires a description of every refund (mollie/openapi `entity-refund`).
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '{}').description).toBe(
      'Refund: pl_ours000000000000000000001',
    );
    // A retry of the same refund does not refund twice.
    expect(await psp.refund(request)).toEqual(refund);
    expect(mollie.refunds.size).toBe(1);

    const refundId = refund.reference.split('/')[1] as string;
    mollie.setRefundStatus(refundId, 'refunded');
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'succeeded',
      failureMessage: null,
    });
    mollie.setRefundStatus(refundId, 'failed');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('failed');
  });

  it('refuses to refund more than remains: Mollie’s 422 reaches the caller as a definite refusal', async () => {
    const psp = await factory.create(testConnection);
    const paid = await paidPayment(psp, '10.00');
    const refusal = psp.refund({
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      paymentReference: paid.id,
      amount: { value: '10.01', currency: 'EUR' },
      description: 'Order 1001',
    });
    await expect(refusal).rejects.toBeInstanceOf(PspRefusalError);
    await expect(refusal).rejects.toThrow(/^Mollie: .*refundable/);
  });

  it('answers a webhook it cannot check with Mollie with a 5xx, so that Mollie sends it again', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    const psp = await factory.create(testConnection);
    const session = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    mollie.outage = 'error';
    try {
      // Mollie failing (`PspOutageError`), which the notification use case answers with a 502.
      await expect(psp.verifyNotification(mollie.webhookBody(session.id), {})).rejects.toThrow(
        PspOutageError,
      );
    } finally {
      mollie.outage = 'none';
    }
  });

  it('gives up on a Mollie that does not answer within the PSP call budget', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    const psp = await factory.create(testConnection);
    mollie.outage = 'hang';
    try {
      await expect(psp.createSession(sessionRequest(orderLink('5.00'), testConnection))).rejects.toThrow(
        PspCallTimeoutError,
      );
    } finally {
      mollie.outage = 'none';
    }
  });
});

describe('Mollie credentials and modes', () => {
  it('accepts only a key of the connection’s mode when credentials are stored', () => {
    expect(credentialsProblemOf(mollieDescriptor, { api_key: testKey }, 'test')).toBeUndefined();
    expect(credentialsProblemOf(mollieDescriptor, { api_key: liveKey }, 'live')).toBeUndefined();
    expect(credentialsProblemOf(mollieDescriptor, { api_key: testKey }, 'live')).toMatch(
      /live-mode Mollie connection needs a live_/,
    );
    expect(credentialsProblemOf(mollieDescriptor, { api_key: liveKey }, 'test')).toMatch(/test_/);
    expect(credentialsProblemOf(mollieDescriptor, { api_key: 'access_abc' }, 'test')).toMatch(/API key/);
    expect(credentialsProblemOf(mollieDescriptor, {}, 'test')).toMatch(/API key/);
  });

  it('refuses to serve a live connection whose stored key is a test key', async () => {
    const connection = connectionOf('live', 'pc_mollieswapped0000000000000000');
    secrets.set(connection.secret_name as string, JSON.stringify({ api_key: testKey }));
    await expect(factory.create(connection)).rejects.toThrow(PspNotConfiguredError);
  });

  it('uses a rotated key on the next call, without waiting for the container to recycle', async () => {
    const connection = connectionOf('test', 'pc_mollierotated0000000000000000');
    secrets.set(connection.secret_name as string, JSON.stringify({ api_key: testKey }));
    const before = await factory.create(connection);
    await before.createSession(sessionRequest(orderLink('5.00'), connection));
    expect(mollie.requests.at(-1)?.headers.authorization).toBe(`Bearer ${testKey}`);
    expect(await factory.create(connection)).toBe(before);

    secrets.set(connection.secret_name as string, JSON.stringify({ api_key: rotatedTestKey }));
    const after = await factory.create(connection);
    await after.createSession(sessionRequest(orderLink('5.00'), connection));
    expect(mollie.requests.at(-1)?.headers.authorization).toBe(`Bearer ${rotatedTestKey}`);
  });
});
