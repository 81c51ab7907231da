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
import { newPaymentLink } from '../../../../domain/payment-link.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { MercadoPagoPsp } from '../adapter.ts';
import { mercadopago } from '../descriptor.ts';
import { signedManifest } from '../notifications.ts';
import { type FakeMercadoPago, MERCADOPAGO_FAKE, startFakeMercadoPago } from './fake.ts';

/**
 * Mercado Pago's adapter (its official SDK) against its fake, held to the trimmed reference documents and the
 * refunds' hand-written shape: every request the adapter sends and every answer the fake gives conforms
 * (`violations` stays empty).
 */
const TOKEN = MERCADOPAGO_FAKE.credentials.access_token;
const LIVE_TOKEN = TOKEN.replace('TEST-', 'APP_USR-');
const SECRET = MERCADOPAGO_FAKE.credentials.webhook_secret;
const connection = storedConnection('mercadopago', 'test', 'pc_mercadopagotest000000000001');
const liveConnection = storedConnection('mercadopago', 'live', 'pc_mercadopagolive000000000001');
let fake: FakeMercadoPago;
let untrust: () => void;
let psp: MercadoPagoPsp;
let live: MercadoPagoPsp;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await startFakeMercadoPago({ accessTokens: [TOKEN, LIVE_TOKEN] });
  const secrets = new Map([
    [connection.secret_name as string, JSON.stringify(MERCADOPAGO_FAKE.credentials)],
    [
      liveConnection.secret_name as string,
      JSON.stringify({ access_token: LIVE_TOKEN, webhook_secret: 'live-secret-1' }),
    ],
  ]);
  const factory = factoryOf<MercadoPagoPsp>(PSP_FACTORIES.mercadopago, { secrets, apiUrl: fake.apiUrl });
  psp = await factory.create(connection);
  live = await factory.create(liveConnection);
});
afterAll(async () => {
  fake.outage = 'none';
  await fake.stop();
  untrust();
});

const reais = (value: string) => orderLink(value, 'BRL');
const lastBody = () => JSON.parse(fake.requests.at(-1)?.body ?? '');

describe('a Mercado Pago session', () => {
  it('is a Checkout Pro preference: decimal major units, our ids as external_reference, the returns, its end, the buyer to init_point', async () => {
    const request = sessionRequest(reais('150.75'), connection);
    const session = await psp.createSession(request);
    expect(session.url).toBe(`https://www.mercadopago.com/mlb/checkout/start?pref_id=${session.id}`);
    const sent = fake.requests.at(-1);
    expect(sent?.headers['x-idempotency-key']).toBe(request.paymentId);
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      items: [
        {
          id: `${request.link.id}-1`,
          title: 'Order 1001',
          quantity: 1,
          currency_id: 'BRL',
          unit_price: 150.75,
        },
      ],
      external_reference: `${request.link.id}/${request.paymentId}`,
      back_urls: { success: request.successUrl, pending: request.successUrl, failure: request.cancelUrl },
      auto_return: 'approved',
      expires: true,
      expiration_date_to: request.expiresAt.toISOString().replace('Z', '+00:00'),
      date_of_expiration: request.expiresAt.toISOString().replace('Z', '+00:00'),
    });
    expect(session.expires_at).toBe(request.expiresAt.toISOString());
    expect(fake.violations).toEqual([]);
  });

  it('sends the link’s lines as items, and a retry of the same payment gets the same preference (its idempotency key)', async () => {
    const link = newPaymentLink(
      { account: 'acme', mode: 'test' },
      {
        line_items: [
          { name: 'Camiseta', quantity: 2, unit_amount: { value: '49.90', currency: 'BRL' } },
          { name: 'Frete', quantity: 1, unit_amount: { value: '15.00', currency: 'BRL' } },
        ],
      },
      new Date(),
    );
    const request = sessionRequest(link, connection);
    const first = await psp.createSession(request);
    expect(lastBody().items).toEqual([
      { id: `${link.id}-1`, title: 'Camiseta', quantity: 2, currency_id: 'BRL', unit_price: 49.9 },
      { id: `${link.id}-2`, title: 'Frete', quantity: 1, currency_id: 'BRL', unit_price: 15 },
    ]);
    const again = await psp.createSession(request);
    expect(again.id).toBe(first.id);
    expect(fake.preferences.size).toBe([...fake.preferences.keys()].length);
    expect(
      [...fake.preferences.values()].filter((each) => each.external_reference.endsWith(request.paymentId)),
    ).toHaveLength(1);
  });

  it('takes Chilean and Colombian pesos in whole units only, refusing decimals without a call', async () => {
    await psp.createSession(sessionRequest(orderLink('15000.00', 'COP'), connection));
    expect(lastBody().items[0]).toMatchObject({ currency_id: 'COP', unit_price: 15000 });
    await psp.createSession(sessionRequest(orderLink('9990', 'CLP'), connection));
    expect(lastBody().items[0]).toMatchObject({ currency_id: 'CLP', unit_price: 9990 });
    const before = fake.requests.length;
    await expect(
      psp.createSession(sessionRequest(orderLink('15000.50', 'COP'), connection)),
    ).rejects.toMatchObject({
      kind: 'refused',
      message: /no decimals/,
    });
    await expect(
      psp.createSession(sessionRequest(orderLink('10.00', 'EUR'), connection)),
    ).rejects.toMatchObject({
      kind: 'refused',
      message: /does not take EUR/,
    });
    expect(fake.requests.length).toBe(before);
    expect(fake.violations).toEqual([]);
  });

  it('offers only the link’s methods: Pix and boleto leave out cards, cash machines and OXXO', async () => {
    const request = {
      ...sessionRequest(reais('80.00'), connection),
      paymentMethods: ['pix' as const, 'boleto' as const],
    };
    await psp.createSession(request);
    expect(lastBody().payment_methods).toEqual({
      excluded_payment_types: [
        { id: 'credit_card' },
        { id: 'debit_card' },
        { id: 'prepaid_card' },
        { id: 'atm' },
      ],
      excluded_payment_methods: [{ id: 'oxxo' }],
    });
    const cards = { ...sessionRequest(reais('80.00'), connection), paymentMethods: ['card' as const] };
    await psp.createSession(cards);
    expect(lastBody().payment_methods.excluded_payment_types).toEqual([
      { id: 'ticket' },
      { id: 'bank_transfer' },
      { id: 'atm' },
    ]);
    const none = { ...sessionRequest(reais('80.00'), connection), paymentMethods: ['ideal' as const] };
    await expect(psp.createSession(none)).rejects.toMatchObject({ kind: 'refused' });
    expect(fake.violations).toEqual([]);
  });

  it('reads the preference back: pending without a payment at what its items charge, then the payment that decides it, at its amount and currency', async () => {
    const request = sessionRequest(reais('150.75'), connection);
    const session = await psp.createSession(request);
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'pending',
      amount: { value: '150.75', currency: 'BRL' },
    });
    fake.pay(session.id, 'rejected');
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'failed',
      failure: {
        code: 'do_not_honor',
        message: 'Mercado Pago rejected the payment. (Mercado Pago code cc_rejected_other_reason)',
      },
    });
    const paid = fake.pay(session.id, 'approved');
    expect(await psp.retrieveSession(session.id)).toEqual({
      id: session.id,
      paymentId: request.paymentId,
      linkId: request.link.id,
      state: 'succeeded',
      failure: null,
      paymentReference: paid.id,
      amount: { value: '150.75', currency: 'BRL' },
      livemode: false,
    });
    expect(await psp.retrieveSession(paid.id)).toMatchObject({
      id: paid.id,
      state: 'succeeded',
      paymentId: request.paymentId,
    });
    paid.transaction_amount = 15.07;
    expect((await psp.retrieveSession(paid.id)).amount).toEqual({ value: '15.07', currency: 'BRL' });
    expect(fake.violations).toEqual([]);
  });

  it('is ended by setting expiration_date_to to now: its page takes no payment after; one under way refuses the end', async () => {
    const ended = await psp.createSession(sessionRequest(reais('60.00'), connection));
    expect(await psp.expireSession(ended)).toBe('ended');
    expect(fake.requests.at(-1)?.path).toBe('/v1/payments/search');
    const put = fake.requests.find((each) => each.method === 'PUT' && each.path.endsWith(ended.id));
    expect(JSON.parse(put?.body ?? '')).toEqual({
      expires: true,
      expiration_date_to: expect.stringMatching(/\+00:00$/),
    });
    expect(() => fake.pay(ended.id)).toThrow(/has ended/);
    expect(await psp.retrieveSession(ended.id)).toMatchObject({
      state: 'expired',
      failure: { code: 'expired' },
    });
    const pix = await psp.createSession(sessionRequest(reais('60.00'), connection));
    fake.pay(pix.id, 'pending', 'pix');
    expect(await psp.expireSession(pix)).toBe('refused');
    expect(await psp.retrieveSession(pix.id)).toMatchObject({ state: 'pending' });
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(mercadopago));
    expect(fake.violations).toEqual([]);
  });

  it('refuses a payment of the other mode', async () => {
    const session = await live.createSession(
      sessionRequest(orderLink('10.00', 'MXN', 'live'), liveConnection),
    );
    const paid = fake.pay(session.id);
    expect(await live.retrieveSession(paid.id)).toMatchObject({ livemode: true, state: 'succeeded' });
    paid.live_mode = false;
    await expect(live.retrieveSession(paid.id)).rejects.toMatchObject({ kind: 'notification_not_authentic' });
    await expect(live.retrieveSession('999')).rejects.toMatchObject({
      kind: 'notification_not_authentic',
      unknownId: '999',
    });
  });
});

describe('Mercado Pago notifications', () => {
  it('verify only with x-signature: the HMAC-SHA256 of id, request-id and ts keyed with the webhook secret', async () => {
    const session = await psp.createSession(sessionRequest(reais('40.00'), connection));
    const paid = fake.pay(session.id);
    const { body, headers } = fake.notification(paid, SECRET);
    const ts = /ts=(\d+)/.exec(headers['x-signature'] as string)?.[1] as string;
    const manifest = `id:${paid.id};request-id:${headers['x-request-id']};ts:${ts};`;
    expect(signedManifest(paid.id, headers['x-request-id'], ts)).toBe(manifest);
    expect(headers['x-signature']).toBe(
      `ts=${ts},v1=${createHmac('sha256', SECRET).update(manifest).digest('hex')}`,
    );
    expect(await psp.verifyNotification(body, headers)).toEqual([
      { type: 'payment.updated', sessionId: paid.id, refundReference: null, livemode: false },
    ]);
    const other = fake.notification(paid, 'another-application-secret');
    const forgedId = body.replace(`"id":"${paid.id}"`, '"id":"1"');
    for (const [sent, sentHeaders] of [
      [body, other.headers],
      [forgedId, headers],
      [body, { ...headers, 'x-request-id': 'another-request' }],
      [body, { ...headers, 'x-signature': headers['x-signature']?.replace(/ts=\d+/, 'ts=1') }],
      [body, { 'x-request-id': headers['x-request-id'] }],
    ] as const) {
      await expect(psp.verifyNotification(sent, sentHeaders)).rejects.toMatchObject({
        kind: 'notification_not_authentic',
      });
    }
  });

  it('follows Mercado Pago’s worked example, and ignores other topics once verified', async () => {
    const example = 'id:123456789;request-id:bb56a2f1-6aae-46ac-982e-9dcd3581d08e;ts:1742505638683;';
    expect(signedManifest('123456789', 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e', '1742505638683')).toBe(
      example,
    );
    const v1 = createHmac('sha256', SECRET).update('id:987;request-id:r-1;ts:5;').digest('hex');
    const order = JSON.stringify({ type: 'merchant_order', data: { id: '987' }, live_mode: false });
    expect(
      await psp.verifyNotification(order, { 'x-signature': `ts=5,v1=${v1}`, 'x-request-id': 'r-1' }),
    ).toEqual([]);
  });
});

describe('Mercado Pago refunds', () => {
  it('refunds part of a payment with X-Idempotency-Key, in major units, and reads its outcome', async () => {
    const session = await psp.createSession(sessionRequest(reais('100.00'), connection));
    const paid = fake.pay(session.id);
    const request = {
      refundId: 're_mercadopago00000000000000001',
      linkId: 'pl_mercadopago00000000000000001',
      paymentReference: paid.id,
      amount: { value: '25.50', currency: 'BRL' },
    };
    const refund = await psp.refund(request);
    expect(refund).toMatchObject({ refundId: request.refundId, linkId: request.linkId, state: 'pending' });
    expect(refund.reference).toMatch(new RegExp(`^${paid.id}/\\d+$`));
    expect(fake.requests.at(-1)?.headers['x-idempotency-key']).toBe(request.refundId);
    expect(lastBody()).toEqual({ amount: 25.5 });
    expect(await psp.refund(request)).toEqual(refund);
    expect(fake.refunds.size).toBe(new Set([...fake.refunds.values()].map((each) => each.id)).size);
    fake.settleRefund(Number(refund.reference.split('/')[1]), 'approved');
    expect(await psp.retrieveRefund(refund.reference)).toMatchObject({ state: 'succeeded', refundId: null });
    expect(fake.payments.get(paid.id)?.transaction_amount_refunded).toBe(25.5);
    expect(fake.violations).toEqual([]);
  });

  it('is refused when Mercado Pago refuses it (more than is left), and never asked again after a lost answer', async () => {
    const session = await psp.createSession(sessionRequest(reais('10.00'), connection));
    const paid = fake.pay(session.id);
    await expect(
      psp.refund({
        refundId: 're_mp2',
        linkId: 'pl_x',
        paymentReference: paid.id,
        amount: { value: '10.01', currency: 'BRL' },
      }),
    ).rejects.toMatchObject({ kind: 'refused' });
    expect(psp.idempotencyWindowMs).toBe(0);
  });
});

describe('Mercado Pago failing', () => {
  it('a refused token is refused credentials; a 500 (asked once) and no answer in time are outages', async () => {
    const revoked = storedConnection('mercadopago', 'test', 'pc_mercadopagorevoked0000000001');
    const secrets = new Map([
      [
        revoked.secret_name as string,
        JSON.stringify({ access_token: 'TEST-revoked', webhook_secret: SECRET }),
      ],
    ]);
    const other = await factoryOf<MercadoPagoPsp>(PSP_FACTORIES.mercadopago, {
      secrets,
      apiUrl: fake.apiUrl,
    }).create(revoked);
    const request = () => sessionRequest(reais('10.00'), connection);
    await expect(other.createSession(request())).rejects.toMatchObject({ kind: 'credentials_rejected' });
    fake.outage = 'error';
    const before = fake.requests.length;
    await expect(psp.createSession(request())).rejects.toMatchObject({ kind: 'unavailable' });
    // One try: the SDK's own retries of a 5xx (seconds of backoff) are off.
    expect(fake.requests.length).toBe(before + 1);
    fake.outage = 'hang';
    await expect(psp.retrieveSession('1234')).rejects.toMatchObject({ kind: 'unavailable' });
    fake.outage = 'none';
  });
});

describe('Mercado Pago credentials', () => {
  it('refuse test credentials on a live connection, and anything but an access token', () => {
    const credentials = (access_token: string) => ({ access_token, webhook_secret: SECRET });
    expect(credentialsProblemOf(mercadopago, credentials(TOKEN), 'test')).toBeUndefined();
    expect(credentialsProblemOf(mercadopago, credentials(LIVE_TOKEN), 'test')).toBeUndefined();
    expect(credentialsProblemOf(mercadopago, credentials(LIVE_TOKEN), 'live')).toBeUndefined();
    expect(credentialsProblemOf(mercadopago, credentials(TOKEN), 'live')).toMatch(/APP_USR-/);
    expect(credentialsProblemOf(mercadopago, credentials('sk_test_abc'), 'test')).toMatch(/TEST-/);
    expect(credentialsProblemOf(mercadopago, { access_token: TOKEN }, 'test')).toMatch(/webhook_secret/);
  });
});
