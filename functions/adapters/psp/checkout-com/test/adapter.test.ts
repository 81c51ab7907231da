import { describe, expect, it } from 'vitest';
import { credentialsProblemOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import { classified } from '../../../../domain/payment-failure.ts';
import { newPaymentLink } from '../../../../domain/payment-link.ts';
import { PspCredentialsRejectedError, PspOutageError, PspRefusalError } from '../../../../ports/psp.ts';
import { canEndSessions } from '../../../../ports/psp-capabilities.ts';
import { checkCredentials } from '../../kit/credentials.ts';
import { checkoutCom } from '../descriptor.ts';
import { FAKE_CHECKOUT_CREDENTIALS, useCheckoutAdapter } from './adapter-setup.ts';

/**
 * The Checkout.com adapter through `checkout-sdk-node` against a server that speaks Checkout.com's API
 * (./fake.ts): payment links made with capture disabled, read back with their payment,
 * captured or voided, `Cko-Signature` notifications, refunds and their outcomes.
 */
const { connection, started } = useCheckoutAdapter('adapter');

const open = async (value = '10.00', locale = 'nl-BE') => {
  const request = { ...sessionRequest(orderLink(value), connection, undefined, locale) };
  const session = await started.psp.createSession(request);
  return { request, session };
};

describe('a Checkout.com session', () => {
  it('is a payment link with capture disabled, our ids, the locale, the billing country and the channel', async () => {
    const { request, session } = await open('10.00', 'nl-BE');
    const link = started.fake.links.get(session.id);
    expect(session).toMatchObject({
      provider: 'checkout_com',
      connection_id: connection.id,
      payment_id: request.paymentId,
    });
    expect(session.url).toBe(`${started.fake.url}/link/${session.id}`);
    expect(link).toMatchObject({
      amount: 1000,
      currency: 'EUR',
      reference: request.paymentId,
      capture: false,
      locale: 'nl-NL',
      billing: { address: { country: 'BE' } },
      processing_channel_id: FAKE_CHECKOUT_CREDENTIALS.processing_channel_id,
      metadata: { link_id: request.link.id, payment_id: request.paymentId },
      return_url: request.successUrl,
    });
    expect(started.psp.checkoutOrigin).toBe(new URL(started.fake.url).origin);
  });

  it("prefills the address's e-mail as the customer's and keeps the buyer's reference in metadata", async () => {
    const request = {
      ...sessionRequest(orderLink('10.00'), connection, undefined, 'nl'),
      references: { client_reference_id: 'crm-12', prefilled_email: 'ida@example.com' },
    };
    const session = await started.psp.createSession(request);
    expect(started.fake.links.get(session.id)).toMatchObject({
      // Its `reference` stays our payment id, which its notifications name.
      reference: request.paymentId,
      customer: { email: 'ida@example.com' },
      metadata: { link_id: request.link.id, payment_id: request.paymentId, client_reference_id: 'crm-12' },
    });
    expect(started.fake.violations).toEqual([]);
  });

  it('sends a basket as products in minor units and the methods in Checkout.com words', async () => {
    const link = newPaymentLink(
      { account: 'acme', mode: 'test' },
      {
        line_items: [
          { name: 'Beans', quantity: 2, unit_amount: { value: '24.95', currency: 'EUR' }, tax_rate: '9' },
          { name: 'Gift wrap', quantity: 1, unit_amount: { value: '0.50', currency: 'EUR' } },
        ],
      },
      new Date(),
    );
    const request = {
      ...sessionRequest(link, connection),
      paymentMethods: ['card' as const, 'przelewy24' as const],
    };
    const session = await started.psp.createSession(request);
    expect(started.fake.links.get(session.id)).toMatchObject({
      amount: 5040,
      products: [
        { name: 'Beans', quantity: 2, price: 2495 },
        { name: 'Gift wrap', quantity: 1, price: 50 },
      ],
      allow_payment_methods: ['card', 'p24'],
    });
  });

  it('refuses, without asking Checkout.com, a three-decimal amount not in whole hundredths', async () => {
    const before = started.fake.requests.length;
    await expect(
      started.psp.createSession(sessionRequest(orderLink('10.005', 'KWD'), connection)),
    ).rejects.toThrow(PspRefusalError);
    expect(started.fake.requests.length).toBe(before);
  });

  it('reads pending (awaiting approval) before the buyer pays, and cannot be ended early', async () => {
    const { request, session } = await open();
    expect(await started.psp.retrieveSession(session.id)).toMatchObject({
      id: session.id,
      paymentId: request.paymentId,
      linkId: request.link.id,
      state: 'pending',
      deferredCapture: 'awaiting_approval',
      amount: { value: '10.00', currency: 'EUR' },
      livemode: false,
    });
    // A payment link cannot be ended at Checkout.com: the adapter does not claim to (`EndsSessions`).
    expect(canEndSessions(started.psp)).toBe(false);
  });

  it('reads approved once the buyer authorized, succeeded once captured, and a capture is made once', async () => {
    const { request, session } = await open('12.50');
    const payment = await started.fake.pay(session.id);
    expect(await started.psp.retrieveSession(session.id)).toMatchObject({
      state: 'pending',
      deferredCapture: 'approved',
      paymentReference: null,
    });
    const captured = await started.psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    expect(captured).toMatchObject({ state: 'succeeded', paymentReference: payment.id });
    // The same capture again (the buyer's return and the notification both capture): the same one.
    await started.psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    expect(payment.actions.filter((action) => action.type === 'Capture')).toHaveLength(1);
  });

  it('captures in two calls after the session was read back, as the buyer’s return budgets for', async () => {
    const { request, session } = await open();
    await started.fake.pay(session.id);
    await started.psp.retrieveSession(session.id);
    const before = started.fake.requests.length;
    await started.psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    expect(
      started.fake.requests.slice(before).map(({ method, path }) => `${method} ${path.split('/')[3] ?? ''}`),
    ).toEqual(['POST captures', 'GET ']);
  });

  it('voids the authorization of a released attempt, which then reads canceled', async () => {
    const { request, session } = await open();
    const payment = await started.fake.pay(session.id);
    await started.psp.voidAuthorization?.({ id: payment.id, paymentId: request.paymentId });
    expect(payment.status).toBe('Voided');
    // Voided already (a second sighting of the release): Checkout.com's refusal leaves it as it is.
    await expect(
      started.psp.voidAuthorization?.({ id: payment.id, paymentId: request.paymentId }),
    ).resolves.toBeUndefined();
    expect(await started.psp.retrieveSession(session.id)).toMatchObject({ state: 'canceled' });
    // Nothing is left to capture: the capture is refused by Checkout.com and the status says why.
    expect(
      await started.psp.captureSession?.({ id: session.id, paymentId: request.paymentId }),
    ).toMatchObject({
      state: 'canceled',
    });
  });

  it('reads a declined payment as failed, with its authorization’s response code through the decline table', async () => {
    const { session } = await open();
    await started.fake.pay(session.id, false);
    expect(await started.psp.retrieveSession(session.id)).toMatchObject({
      state: 'failed',
      failure: { code: 'do_not_honor', message: expect.stringContaining('20005') },
    });
    const expired = await open();
    const payment = await started.fake.pay(expired.session.id, false, '20054');
    expect((await started.psp.retrieveSession(payment.id)).failure?.code).toBe('expired_card');
    const unknown = await open();
    await started.fake.pay(unknown.session.id, false, '29999');
    expect((await started.psp.retrieveSession(unknown.session.id)).failure?.code).toBe('processing_error');
    expect(started.fake.violations).toEqual([]);
  });

  it('reads an issuer or network failure (20091 issuer unavailable, 20068 too late) as an outage, not a decline', async () => {
    for (const responseCode of ['20091', '20068']) {
      const { session } = await open();
      await started.fake.pay(session.id, false, responseCode);
      const { failure } = await started.psp.retrieveSession(session.id);
      expect(failure && classified(failure)).toMatchObject({ code: 'psp_unavailable', class: 'outage' });
    }
    expect(started.fake.violations).toEqual([]);
  });
});

describe('Checkout.com notifications', () => {
  it('are verified with Cko-Signature and name the payment they concern', async () => {
    const { session } = await open();
    const payment = await started.fake.pay(session.id);
    const { body, headers } = started.fake.signed(started.fake.webhooks.at(-1) as string);
    const [notification] = await started.psp.verifyNotification(body, headers);
    expect(notification).toEqual({
      type: 'payment_approved',
      sessionId: payment.id,
      refundReference: null,
      livemode: false,
    });
    expect(await started.psp.retrieveSession(payment.id)).toMatchObject({
      state: 'pending',
      deferredCapture: 'approved',
    });
  });

  it('are accepted signed with the previous signature key while a rotation overlaps', async () => {
    const { CheckoutPsp } = await import('../adapter.ts');
    const { loadCheckoutSdk } = await import('../client.ts');
    const rotated = {
      ...FAKE_CHECKOUT_CREDENTIALS,
      signature_key: 'the-new-signature-key',
      previous_signature_key: FAKE_CHECKOUT_CREDENTIALS.signature_key,
    };
    const psp = new CheckoutPsp(
      checkoutCom,
      await loadCheckoutSdk(rotated, started.fake.url),
      rotated,
      connection,
    );
    const { session } = await open();
    await started.fake.pay(session.id);
    const { body, headers } = started.fake.signed(started.fake.webhooks.at(-1) as string);
    expect(await psp.verifyNotification(body, headers)).toHaveLength(1);
  });

  it('refuses a body whose signature is missing, forged, or of another body', async () => {
    const { session } = await open();
    await started.fake.pay(session.id);
    const { body, headers } = started.fake.signed(started.fake.webhooks.at(-1) as string);
    await expect(started.psp.verifyNotification(body, {})).rejects.toThrow(InvalidNotificationError);
    await expect(started.psp.verifyNotification(body, { 'cko-signature': 'ab'.repeat(32) })).rejects.toThrow(
      InvalidNotificationError,
    );
    await expect(started.psp.verifyNotification(`${body} `, headers)).rejects.toThrow(
      InvalidNotificationError,
    );
  });
});

describe('Checkout.com refunds', () => {
  const paidSession = async () => {
    const { request, session } = await open('30.00');
    const payment = await started.fake.pay(session.id);
    await started.psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    return payment;
  };

  it('are asked once per idempotency key, and read back pending, then succeeded from the payment actions', async () => {
    const payment = await paidSession();
    const request = {
      refundId: 're_checkout00000000000000001',
      linkId: 'pl_checkout',
      paymentReference: payment.id,
      amount: { value: '5.00', currency: 'EUR' },
    };
    const refund = await started.psp.refund(request);
    expect(await started.psp.refund(request)).toEqual(refund);
    expect(await started.psp.retrieveRefund(refund.reference)).toMatchObject({ state: 'pending' });
    const actionId = refund.reference.split('/')[1] as string;
    const webhook = started.fake.signed(await started.fake.settleRefund(payment.id, actionId, true));
    expect(await started.psp.verifyNotification(webhook.body, webhook.headers)).toEqual([
      { type: 'payment_refunded', sessionId: null, refundReference: refund.reference, livemode: false },
    ]);
    expect(await started.psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'succeeded',
      failureMessage: null,
    });
    expect(payment.actions.filter((action) => action.type === 'Refund')).toHaveLength(1);
  });

  it('read back failed when Checkout.com declines them, and are refused above what is left', async () => {
    const payment = await paidSession();
    const refund = await started.psp.refund({
      refundId: 're_checkout00000000000000002',
      linkId: 'pl_checkout',
      paymentReference: payment.id,
      amount: { value: '30.00', currency: 'EUR' },
    });
    await started.fake.settleRefund(payment.id, refund.reference.split('/')[1] as string, false);
    expect(await started.psp.retrieveRefund(refund.reference)).toMatchObject({
      state: 'failed',
      failureMessage: 'Refund declined',
    });
    // The declined amount is free again: refunded in full, nothing is left.
    await started.psp.refund({
      refundId: 're_checkout00000000000000004',
      linkId: 'pl_checkout',
      paymentReference: payment.id,
      amount: { value: '30.00', currency: 'EUR' },
    });
    await expect(
      started.psp.refund({
        refundId: 're_checkout00000000000000003',
        linkId: 'pl_checkout',
        paymentReference: payment.id,
        amount: { value: '0.01', currency: 'EUR' },
      }),
    ).rejects.toThrow(PspRefusalError);
  });
});

describe('Checkout.com failures', () => {
  it('are an outage when Checkout.com answers 5xx or not at all within the budget', async () => {
    started.fake.outage = 'error';
    try {
      await expect(open()).rejects.toThrow(PspOutageError);
    } finally {
      started.fake.outage = 'none';
    }
  });

  it('are refused credentials when the secret key is revoked', async () => {
    const { CheckoutPsp } = await import('../adapter.ts');
    const { loadCheckoutSdk } = await import('../client.ts');
    const revoked = { ...FAKE_CHECKOUT_CREDENTIALS, secret_key: 'sk_sbox_aaaaaaaaaaaaaaaaaaaaaaaaaaa' };
    const psp = new CheckoutPsp(
      checkoutCom,
      await loadCheckoutSdk(revoked, started.fake.url),
      revoked,
      connection,
      started.fake.url,
    );
    await expect(psp.createSession(sessionRequest(orderLink('10.00'), connection))).rejects.toThrow(
      PspCredentialsRejectedError,
    );
  });
});

describe('Checkout.com credentials', () => {
  it('are checked against the mode: sk_sbox_ keys for test, sk_ keys for live', () => {
    expect(checkCredentials(checkoutCom, FAKE_CHECKOUT_CREDENTIALS, 'test')).toEqual({
      ok: true,
      credentials: FAKE_CHECKOUT_CREDENTIALS,
    });
    const problemOf = (given: unknown, mode: 'test' | 'live') =>
      credentialsProblemOf(checkoutCom, given, mode);
    expect(problemOf(FAKE_CHECKOUT_CREDENTIALS, 'live')).toMatch(/live \(sk_…\) secret key/);
    const live = { ...FAKE_CHECKOUT_CREDENTIALS, secret_key: 'sk_m73dzbpy7cf3gfd46xr4yj5xo4e' };
    expect(problemOf(live, 'live')).toBeUndefined();
    expect(problemOf(live, 'test')).toMatch(/sandbox \(sk_sbox_…\)/);
    expect(problemOf({ ...live, processing_channel_id: 'x' }, 'live')).toMatch(/pc_/);
    expect(problemOf({ secret_key: live.secret_key }, 'live')).toMatch(/signature_key/);
  });
});
