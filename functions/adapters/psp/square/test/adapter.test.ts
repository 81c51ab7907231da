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
import { newPaymentLink } from '../../../../domain/payment-link.ts';
import { PspOutageError, PspRefusalError } from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { SquarePsp } from '../adapter.ts';
import { square as descriptor } from '../descriptor.ts';
import { validSquareSignature } from '../notifications.ts';
import { type FakeSquare, SQUARE_FAKE, startFakeSquare } from './fake.ts';

/**
 * The Square adapter through the official SDK (`square` 46) against a Square-speaking server held to Square's
 * `api.json` (test/contract/): what it sends, what it reads back, how it ends a link and refunds.
 */
const connection = storedConnection('square', 'test', 'pc_squareadapter0000000000000');
const notificationUrl = `http://localhost/psp/square/notifications/${connection.id}`;
let fake: FakeSquare;
let psp: SquarePsp;
let untrust: () => void;
let clock = Date.now();

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await startFakeSquare({
    accessToken: SQUARE_FAKE.credentials.access_token,
    locationId: SQUARE_FAKE.credentials.location_id,
    signatureKey: SQUARE_FAKE.credentials.signature_key,
    currency: 'USD',
  });
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(SQUARE_FAKE.credentials)]]);
  const runtime = { secrets, apiUrl: fake.url };
  psp = await factoryOf<SquarePsp>(
    (psps) => PSP_FACTORIES.square({ ...psps, now: () => new Date(clock) }),
    runtime,
  ).create(connection);
});
afterAll(async () => {
  await fake.stop();
  untrust();
});

const lastBody = () => JSON.parse(fake.requests.at(-1)?.body ?? '{}') as Record<string, never>;

describe('the Square adapter, through the official SDK against a Square-speaking server', () => {
  it('has the capabilities its descriptor declares, and no other', () => {
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(descriptor));
  });

  it('opens a payment link whose order charges the amount at the location, with our ids on the order', async () => {
    const link = orderLink('25.00', 'USD');
    const request = sessionRequest(link, connection);
    const session = await psp.createSession({ ...request, references: { prefilled_email: 'b@example.com' } });

    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v2/online-checkout/payment-links' });
    expect(fake.requests.at(-1)?.headers.authorization).toBe(
      `Bearer ${SQUARE_FAKE.credentials.access_token}`,
    );
    expect(lastBody()).toEqual({
      idempotency_key: request.paymentId,
      order: {
        location_id: SQUARE_FAKE.credentials.location_id,
        reference_id: request.paymentId,
        line_items: [
          { name: 'Order 1001', quantity: '1', base_price_money: { amount: 2500, currency: 'USD' } },
        ],
        metadata: {
          link_id: link.id,
          payment_id: request.paymentId,
          mode: 'test',
          expires_at: request.expiresAt.toISOString(),
        },
      },
      checkout_options: { redirect_url: 'https://shop.example/thanks' },
      pre_populated_data: { buyer_email: 'b@example.com' },
      payment_note: `${request.paymentId} (${link.id})`,
    });
    const created = [...fake.links.values()].at(-1);
    expect(session).toEqual({
      provider: 'square',
      connection_id: connection.id,
      payment_id: request.paymentId,
      id: `${created?.id}:${created?.order_id}`,
      url: created?.url,
      expires_at: request.expiresAt.toISOString(),
    });
    expect(psp.checkoutOrigin).toBe(new URL(fake.url).origin);
  });

  it("sends a link's lines, each at its unit price, and Square's total is the amount", async () => {
    const basket = newPaymentLink(
      { account: 'acme', mode: 'test' },
      {
        line_items: [
          { name: 'Beans', quantity: 2, unit_amount: { value: '24.95', currency: 'USD' } },
          { name: 'Gift wrap', quantity: 1, unit_amount: { value: '0.50', currency: 'USD' } },
        ],
        redirect_url: 'https://shop.example/thanks',
      },
      new Date(),
    );
    const session = await psp.createSession(sessionRequest(basket, connection));
    expect(lastBody().order).toMatchObject({
      line_items: [
        { name: 'Beans', quantity: '2', base_price_money: { amount: 2495, currency: 'USD' } },
        { name: 'Gift wrap', quantity: '1', base_price_money: { amount: 50, currency: 'USD' } },
      ],
    });
    expect((await psp.retrieveSession(session.id)).amount).toEqual({ value: '50.40', currency: 'USD' });
  });

  it('switches on, beside cards, only the methods the buyer may use', async () => {
    const request = sessionRequest(orderLink('10.00', 'USD'), connection);
    await psp.createSession({ ...request, paymentMethods: ['card', 'cashapp', 'afterpay_clearpay'] });
    expect(lastBody().checkout_options).toEqual({
      redirect_url: 'https://shop.example/thanks',
      accepted_payment_methods: {
        apple_pay: false,
        google_pay: false,
        cash_app_pay: true,
        afterpay_clearpay: true,
      },
    });
  });

  it('refuses, before asking Square, a currency no Square location takes; Square refuses its location another', async () => {
    const sent = fake.requests.length;
    await expect(psp.createSession(sessionRequest(orderLink('10.00', 'CHF'), connection))).rejects.toThrow(
      /Square does not take CHF|CHF/,
    );
    expect(fake.requests.length).toBe(sent);
    const refused = psp.createSession(sessionRequest(orderLink('10.00', 'EUR'), connection));
    await expect(refused).rejects.toThrow(PspRefusalError);
    await expect(refused).rejects.toThrow(/UNSUPPORTED_CURRENCY/);
  });

  it('reads back the payment of the order: its state, its amount_money, our ids; unpaid until then', async () => {
    const link = orderLink('12.34', 'USD');
    const request = sessionRequest(link, connection);
    const session = await psp.createSession(request);
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      id: session.id,
      state: 'pending',
      paymentId: request.paymentId,
      linkId: link.id,
      paymentReference: null,
      amount: { value: '12.34', currency: 'USD' },
      livemode: false,
    });
    const paid = await fake.pay(session.id);
    expect(await psp.retrieveSession(session.id)).toEqual({
      id: session.id,
      paymentId: request.paymentId,
      linkId: link.id,
      state: 'succeeded',
      failure: null,
      paymentReference: paid.id,
      amount: { value: '12.34', currency: 'USD' },
      livemode: false,
    });
  });

  it('reports the amount Square charged, not the order’s, when they differ', async () => {
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    await fake.pay(session.id, { charged: { amount: 1000, currency: 'USD' } });
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'succeeded',
      amount: { value: '10.00', currency: 'USD' },
    });
  });

  it("reports the sum of a completed payment's processing_fee as its fee, and none before Square lists any", async () => {
    const usd = (amount: number) => ({ amount, currency: 'USD' });
    const withFees = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    await fake.pay(withFees.id, { fees: [usd(88), usd(-3)] });
    expect((await psp.retrieveSession(withFees.id)).fee).toEqual({ fee: { value: '0.85', currency: 'USD' } });
    const without = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    await fake.pay(without.id);
    expect((await psp.retrieveSession(without.id)).fee).toBeUndefined();
    const foreign = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    await fake.pay(foreign.id, { fees: [{ amount: 88, currency: 'EUR' }] });
    expect((await psp.retrieveSession(foreign.id)).fee).toBeUndefined();
    expect(fake.violations).toEqual([]);
  });

  it('keeps a declined attempt pending: the buyer may try again on the same link', async () => {
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    await fake.pay(session.id, { decline: true });
    expect((await psp.retrieveSession(session.id)).state).toBe('pending');
  });

  it('ends a link by deleting it (its order canceled), and refuses to end one Square no longer has', async () => {
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    expect(await psp.expireSession(session)).toBe('ended');
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      path: `/v2/online-checkout/payment-links/${session.id.split(':')[0]}`,
    });
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'expired',
      failure: { code: 'expired' },
    });
    expect(await psp.expireSession(session)).toBe('refused');
  });

  it('deletes the link of an unpaid session read after its end: a Square link never lapses by itself', async () => {
    const request = sessionRequest(orderLink('20.00', 'USD'), connection);
    const session = await psp.createSession(request);
    const [linkId] = session.id.split(':');
    expect((await psp.retrieveSession(session.id)).state).toBe('pending');
    expect(fake.links.has(linkId as string)).toBe(true);
    clock = request.expiresAt.getTime() + 1;
    try {
      expect(await psp.retrieveSession(session.id)).toMatchObject({ state: 'expired' });
      expect(fake.links.has(linkId as string)).toBe(false);
    } finally {
      clock = Date.now();
    }
  });

  it('refunds part of a payment with our refund id as the idempotency key, our ids in its reason', async () => {
    const link = orderLink('30.00', 'USD');
    const session = await psp.createSession(sessionRequest(link, connection));
    const paid = await fake.pay(session.id);
    const request = {
      refundId: 're_square0000000000000000001',
      linkId: link.id,
      paymentReference: paid.id,
      amount: { value: '5.00', currency: 'USD' },
    };
    const refund = await psp.refund(request);
    expect(lastBody()).toEqual({
      idempotency_key: request.refundId,
      payment_id: paid.id,
      amount_money: { amount: 500, currency: 'USD' },
      reason: `Refund ${request.refundId} of ${link.id}`,
    });
    expect(refund).toEqual({
      reference: expect.any(String),
      refundId: request.refundId,
      linkId: link.id,
      state: 'pending',
      failureMessage: null,
    });
    expect(await psp.refund(request)).toEqual(refund);
    expect(fake.refunds.size).toBe(1);
    await fake.settleRefund(refund.reference, 'COMPLETED');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    const over = psp.refund({
      ...request,
      refundId: 're_square0000000000000000002',
      amount: { value: '25.01', currency: 'USD' },
    });
    await expect(over).rejects.toThrow(PspRefusalError);
    await expect(over).rejects.toThrow(/REFUND_AMOUNT_INVALID/);
  });

  it('verifies a notification signed over the subscribed URL and the raw body, with the current or previous key', async () => {
    const session = await psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection));
    const paid = await fake.pay(session.id);
    const body = fake.notification('payment.updated', { payment: paid });
    const verify = (signature: string) =>
      psp.verifyNotification(body, { 'x-square-hmacsha256-signature': signature });
    expect(await verify(fake.signature(body, notificationUrl))).toEqual([
      { type: 'payment.updated', sessionId: paid.order_id, refundReference: null, livemode: false },
    ]);
    await expect(verify(fake.signature(body, notificationUrl, 'another-key'))).rejects.toThrow(
      InvalidNotificationError,
    );
    // The URL is part of what is signed: the same body signed for another address is refused.
    await expect(verify(fake.signature(body, `${notificationUrl}/`))).rejects.toThrow(
      InvalidNotificationError,
    );
    await expect(verify(fake.signature(`${body} `, notificationUrl))).rejects.toThrow(
      InvalidNotificationError,
    );
    expect(fake.violations).toEqual([]);
  });

  it('accepts the previous signature key while a rotation overlaps, and only then', async () => {
    const body = fake.notification('payment.updated', { payment: [...fake.payments.values()][0]! });
    const signature = fake.signature(body, notificationUrl);
    const rotated = async (credentials: Record<string, string>) => {
      const secrets = new Map([[connection.secret_name as string, JSON.stringify(credentials)]]);
      const adapter = await factoryOf<SquarePsp>(PSP_FACTORIES.square, { secrets, apiUrl: fake.url }).create(
        connection,
      );
      return adapter.verifyNotification(body, { 'x-square-hmacsha256-signature': signature });
    };
    const replaced = { ...SQUARE_FAKE.credentials, signature_key: 'the-new-signature-key' };
    expect(
      await rotated({ ...replaced, previous_signature_key: SQUARE_FAKE.credentials.signature_key }),
    ).toHaveLength(1);
    await expect(rotated(replaced)).rejects.toThrow(InvalidNotificationError);
  });

  it("reads Square's worked example of its signature", () => {
    const body =
      '{"merchant_id":"ML8M1AQ1GQG2K","type":"payment.updated","event_id":"a3b2c1d0-0000-4000-8000-000000000001","created_at":"2026-01-02T03:04:05.000Z","data":{"type":"payment","id":"KkAkhdMsgzn59SM8A89WgKwekxLZY","object":{"payment":{"id":"KkAkhdMsgzn59SM8A89WgKwekxLZY","status":"COMPLETED","order_id":"CAISENgvlJ6jLWAzERDzjyHVybY"}}}}';
    const url = 'https://pay.example.com/psp/square/notifications/con_123';
    const signature = 'muWPOryBhckUayxu72zrM11K2lM1RiyOGn4S1ouyUGc=';
    expect(validSquareSignature(url, body, signature, ['sq-signature-key-example'])).toBe(true);
    expect(validSquareSignature(url, body, signature, ['another-key'])).toBe(false);
    expect(validSquareSignature(url, body, undefined, ['sq-signature-key-example'])).toBe(false);
  });

  it('counts a Square outage and an answer that never comes as the PSP failing', async () => {
    fake.outage = 'error';
    try {
      await expect(psp.createSession(sessionRequest(orderLink('20.00', 'USD'), connection))).rejects.toThrow(
        PspOutageError,
      );
    } finally {
      fake.outage = 'none';
    }
  });

  it('takes a production token only for live mode, and the other way round', () => {
    const credentials = { ...SQUARE_FAKE.credentials };
    expect(credentialsProblemOf(descriptor, credentials, 'test')).toBeUndefined();
    expect(credentialsProblemOf(descriptor, credentials, 'live')).toBeUndefined();
    expect(
      credentialsProblemOf(
        descriptor,
        { ...credentials, access_token: 'sq0atp-0123456789abcdefghij' },
        'test',
      ),
    ).toMatch(/sandbox access token/);
    expect(
      credentialsProblemOf(
        descriptor,
        { ...credentials, access_token: 'sandbox-sq0atb-0123456789abcdef' },
        'live',
      ),
    ).toMatch(/production access token/);
    expect(credentialsProblemOf(descriptor, { access_token: credentials.access_token }, 'test')).toMatch(
      /location_id/,
    );
  });

  it('sends only what the document allows and the fake answers only what it allows', () => {
    expect(fake.violations).toEqual([]);
    const calls = new Set(
      fake.exchanges.map(
        ({ method, path }) => `${method} ${path.replace(/\/v2\/(\S+)\/[A-Za-z0-9]+$/, '/v2/$1/…')}`,
      ),
    );
    expect(calls).toEqual(
      new Set([
        'POST /v2/online-checkout/payment-links',
        'DELETE /v2/online-checkout/payment-links/…',
        'GET /v2/orders/…',
        'GET /v2/payments/…',
        'POST /v2/refunds',
        'GET /v2/refunds/…',
      ]),
    );
  });
});
