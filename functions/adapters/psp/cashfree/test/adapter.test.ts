// @module-tag waits: a hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { afterEach, describe, expect, it } from 'vitest';
import { usePspAdapters } from '../../../../../test/support/psp-adapters.ts';
import {
  adapterOf,
  credentialsProblemOf,
  declaredInterfaces,
  interfaceCapabilities,
} from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { PspRefusalError } from '../../../../ports/psp.ts';
import type { CashfreePsp } from '../adapter.ts';
import { cashfree as descriptor } from '../descriptor.ts';
import { CASHFREE_FAKE } from './fake.ts';

/**
 * The Cashfree adapter through the official `cashfree-pg` SDK against its fake, which holds every request and
 * answer to cashfree/cashfree-pg's own document (test/contract/).
 */
const { connections, fakes, psps } = usePspAdapters('adapter', { cashfree: CASHFREE_FAKE });
const connection = () => connections.cashfree;
const fake = () => fakes.cashfree;
const psp = () => psps.cashfree as unknown as CashfreePsp;

afterEach(() => {
  fake().outage = 'none';
  expect(fake().violations).toEqual([]);
});

const open = async (
  value = '499.00',
  methods: Parameters<typeof sessionRequest>[0]['payment_methods'] = null,
) => {
  const request = { ...sessionRequest(orderLink(value, 'INR'), connection()), paymentMethods: methods };
  return { request, session: await psp().createSession(request) };
};

const lastBody = () => JSON.parse(fake().requests.at(-1)?.body ?? '{}');

describe('the Cashfree adapter', () => {
  it('has the capabilities its descriptor declares, and no other', () => {
    expect(interfaceCapabilities(psp())).toEqual(declaredInterfaces(descriptor));
  });

  it('makes a payment link of the attempt: our ids, the amount in rupees, its own messages off', async () => {
    const { request, session } = await open('499.50');
    const sent = fake().requests.at(-1);
    expect(sent).toMatchObject({ method: 'POST', path: '/pg/links' });
    expect(sent?.headers).toMatchObject({
      'x-api-version': '2025-01-01',
      'x-client-id': CASHFREE_FAKE.credentials.client_id,
      'x-client-secret': CASHFREE_FAKE.credentials.client_secret,
      'x-idempotency-key': expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
    });
    expect(lastBody()).toEqual({
      link_id: request.paymentId,
      link_amount: 499.5,
      link_currency: 'INR',
      link_purpose: 'Order 1001',
      customer_details: { customer_phone: '9999999999' },
      link_partial_payments: false,
      link_expiry_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$/),
      link_notify: { send_sms: false, send_email: false },
      link_auto_reminders: false,
      link_notes: { link_id: request.link.id, payment_id: request.paymentId, mode: 'test' },
      link_meta: { notify_url: request.notificationUrl, return_url: request.successUrl },
    });
    expect(Date.parse(lastBody().link_expiry_time)).toBe(request.expiresAt.getTime());
    const link = fake().links.get(request.paymentId);
    expect(session).toEqual({
      provider: 'cashfree',
      connection_id: connection().id,
      payment_id: request.paymentId,
      id: request.paymentId,
      url: link?.link_url,
      expires_at: request.expiresAt.toISOString(),
    });
  });

  it('offers the methods the link names in its words, and refuses a link whose methods it serves none of', async () => {
    await open('10.00', ['upi', 'card', 'netbanking', 'ideal']);
    expect(lastBody().link_meta.payment_methods).toBe('upi,cc,dc,nb');
    const sent = fake().requests.length;
    await expect(open('10.00', ['ideal', 'sepa_debit'])).rejects.toThrow(PspRefusalError);
    expect(fake().requests.length).toBe(sent);
  });

  it('leaves out a return address longer than Cashfree takes', async () => {
    const request = sessionRequest(orderLink('10.00', 'INR'), connection());
    await psp().createSession({ ...request, successUrl: `https://shop.example/${'x'.repeat(240)}` });
    expect(lastBody().link_meta).toEqual({ notify_url: request.notificationUrl });
  });

  it('refuses, before asking, less than 1.00 INR and a third decimal; Cashfree refuses a currency not enabled', async () => {
    const sent = fake().requests.length;
    await expect(open('0.99')).rejects.toThrow(/below Cashfree's minimum/);
    const kwd = { ...sessionRequest(orderLink('1.005', 'KWD'), connection()) };
    await expect(psp().createSession(kwd)).rejects.toThrow(/only in whole hundredths/);
    expect(fake().requests.length).toBe(sent);
    const eur = sessionRequest(orderLink('10.00', 'EUR'), connection());
    await expect(psp().createSession(eur)).rejects.toThrow(
      new PspRefusalError('Cashfree refused the session: currency is not enabled'),
    );
  });

  it('reads an open link as pending at its amount, a paid one at its order’s amount with the order as reference', async () => {
    const { request, session } = await open('499.00');
    expect(await psp().retrieveSession(session.id)).toEqual({
      id: request.paymentId,
      paymentId: request.paymentId,
      linkId: request.link.id,
      state: 'pending',
      failure: null,
      paymentReference: null,
      amount: { value: '499.00', currency: 'INR' },
      livemode: false,
    });
    fake().decline(session.id);
    expect((await psp().retrieveSession(session.id)).state).toBe('pending');
    const order = fake().pay(session.id);
    expect(await psp().retrieveSession(session.id)).toMatchObject({
      state: 'succeeded',
      paymentReference: order.order_id,
      amount: { value: '499.00', currency: 'INR' },
    });
    fake().reportAmount(session.id, 1, 'INR');
    expect((await psp().retrieveSession(session.id)).amount).toEqual({ value: '1.00', currency: 'INR' });
  });

  it('never reads an amount Cashfree could not have charged (a third decimal) as one', async () => {
    const { session } = await open('499.00');
    fake().pay(session.id);
    fake().reportAmount(session.id, 499.005, 'INR');
    expect(await psp().retrieveSession(session.id)).toMatchObject({ state: 'succeeded', amount: null });
  });

  it('ends a link by cancelling it; a link no longer ACTIVE is refused, and read as what it became', async () => {
    const { session } = await open();
    expect(await psp().expireSession(session)).toBe('ended');
    expect(fake().links.get(session.id)?.link_status).toBe('CANCELLED');
    expect(await psp().retrieveSession(session.id)).toMatchObject({
      state: 'canceled',
      failure: { code: 'canceled' },
    });
    expect(await psp().expireSession(session)).toBe('refused');
    const paid = (await open()).session;
    fake().pay(paid.id);
    expect(await psp().expireSession(paid)).toBe('refused');
    Object.assign(fake().links.get(paid.id) ?? {}, { link_status: 'EXPIRED' });
    expect(await psp().retrieveSession(paid.id)).toMatchObject({
      state: 'expired',
      failure: { code: 'expired' },
    });
  });

  it('refunds part of the paid order, pending until Cashfree settles it, our ids carried back', async () => {
    const { request, session } = await open('499.00');
    const order = fake().pay(session.id);
    const refund = await refundOf(session, '100.50', 're_cashfreeadapter00000000001', request.link.id);
    expect(lastBody()).toEqual({
      refund_amount: 100.5,
      refund_id: 're_cashfreeadapter00000000001',
      refund_note: request.link.id,
    });
    expect(refund).toEqual({
      reference: `${order.order_id}/re_cashfreeadapter00000000001`,
      refundId: 're_cashfreeadapter00000000001',
      linkId: request.link.id,
      state: 'pending',
      failureMessage: null,
    });
    fake().settleRefund(refund.reference, 'SUCCESS');
    expect(await psp().retrieveRefund(refund.reference)).toMatchObject({ state: 'succeeded' });
    const second = await refundOf(session, '10.00', 're_cashfreeadapter00000000002', request.link.id);
    fake().settleRefund(second.reference, 'CANCELLED');
    expect(await psp().retrieveRefund(second.reference)).toMatchObject({
      state: 'failed',
      failureMessage: 'Cashfree: Refund cancelled by the bank',
    });
    await expect(
      refundOf(session, '398.51', 're_cashfreeadapter00000000003', request.link.id),
    ).rejects.toThrow(PspRefusalError);
  });

  it('answers a refund asked again with the first: replayed by its key, or read back once the key is gone', async () => {
    const { request, session } = await open('499.00');
    fake().pay(session.id);
    const first = await refundOf(session, '20.00', 're_cashfreeadapter00000000004', request.link.id);
    expect(await refundOf(session, '20.00', 're_cashfreeadapter00000000004', request.link.id)).toEqual(first);
    fake().forgetIdempotencyKeys();
    expect(await refundOf(session, '20.00', 're_cashfreeadapter00000000004', request.link.id)).toEqual(first);
    expect([...fake().refunds.values()].filter((refund) => refund.refund_id === first.refundId)).toHaveLength(
      1,
    );
  });

  it('counts a 5xx and a call that never ends as Cashfree failing, and refused keys as such', async () => {
    fake().outage = 'error';
    await expect(open()).rejects.toMatchObject({ kind: 'unavailable' });
    fake().outage = 'hang';
    await expect(psp().retrieveSession('pay_nothing')).rejects.toMatchObject({ kind: 'unavailable' });
    fake().outage = 'none';
    const stranger = storedConnection('cashfree', 'test', 'pc_cashfreestranger0000000000');
    const wrong = await adapterOf(
      stranger,
      { ...CASHFREE_FAKE.credentials, client_secret: 'cfsk_ma_test_other' },
      fake().apiUrl,
    );
    await expect(wrong.retrieveSession('pay_nothing')).rejects.toMatchObject({
      kind: 'credentials_rejected',
    });
  });
});

describe('Cashfree webhooks', () => {
  it('verifies the signature over the exact raw body and names the link of a payment event', async () => {
    const { session } = await open('499.00');
    fake().pay(session.id);
    const webhook = fake().paymentWebhook(session.id);
    expect(webhook.body).toContain('"order_amount":499.00');
    expect(await psp().verifyNotification(webhook.body, webhook.headers)).toEqual([
      { type: 'PAYMENT_SUCCESS_WEBHOOK', sessionId: session.id, refundReference: null, livemode: false },
    ]);
    // The same JSON re-serialised (499 for 499.00) is not what Cashfree signed.
    await expect(
      psp().verifyNotification(JSON.stringify(JSON.parse(webhook.body)), webhook.headers),
    ).rejects.toThrow(InvalidNotificationError);
  });

  it('refuses a body changed after signing, another key, another timestamp and a missing signature', async () => {
    const { session } = await open('499.00');
    fake().pay(session.id);
    const webhook = fake().paymentWebhook(session.id);
    const refused = (body: string, headers: Record<string, string>) =>
      expect(psp().verifyNotification(body, headers)).rejects.toThrow(InvalidNotificationError);
    await refused(webhook.body.replace('499.00', '1.00'), webhook.headers);
    const foreign = fake().paymentWebhook(session.id, { secret: 'cfsk_ma_test_someone_else' });
    await refused(foreign.body, foreign.headers);
    await refused(webhook.body, {
      ...webhook.headers,
      'x-webhook-timestamp': String(Number(webhook.headers['x-webhook-timestamp']) + 1),
    });
    await refused(webhook.body, { ...webhook.headers, 'x-webhook-signature': '' });
  });

  it('names the link of a link event, the refund of a refund event, and nothing of another event', async () => {
    const { request, session } = await open('499.00');
    fake().pay(session.id);
    const linkEvent = fake().linkWebhook(session.id);
    expect((await psp().verifyNotification(linkEvent.body, linkEvent.headers))[0]).toMatchObject({
      type: 'PAYMENT_LINK_EVENT',
      sessionId: session.id,
    });
    const refund = await refundOf(session, '5.00', 're_cashfreeadapter00000000005', request.link.id);
    const refundEvent = fake().refundWebhook(refund.reference);
    expect((await psp().verifyNotification(refundEvent.body, refundEvent.headers))[0]).toMatchObject({
      type: 'REFUND_STATUS_WEBHOOK',
      sessionId: null,
      refundReference: refund.reference,
    });
  });
});

describe('Cashfree credentials', () => {
  const keys = CASHFREE_FAKE.credentials;
  it('refuses keys that carry the mark of the other environment, and takes keys of an older form', () => {
    expect(credentialsProblemOf(descriptor, keys, 'test')).toBeUndefined();
    expect(credentialsProblemOf(descriptor, keys, 'live')).toMatch(/production environment/);
    expect(
      credentialsProblemOf(descriptor, { client_id: '12345abcde', client_secret: 'cfsk_ma_prod_x' }, 'test'),
    ).toMatch(/sandbox environment/);
    expect(
      credentialsProblemOf(descriptor, { client_id: '12345abcde', client_secret: '0f1e2d3c4b5a' }, 'live'),
    ).toBeUndefined();
    expect(credentialsProblemOf(descriptor, { client_id: '12345abcde' }, 'live')).toMatch(/client_secret/);
  });

  it('builds the SDK with its error analytics off (on, it would send our errors to Cashfree’s Sentry)', () => {
    const client = (psp() as unknown as { client: { XEnableErrorAnalytics: boolean; XApiVersion: string } })
      .client;
    expect(client).toMatchObject({ XEnableErrorAnalytics: false, XApiVersion: '2025-01-01' });
  });
});

const refundOf = (session: PspSession, value: string, refundId: string, linkId: string) =>
  psp().refund({
    refundId,
    linkId,
    paymentReference: fake().orders.size
      ? ([...fake().orders.values()]
          .filter((order) => order.link_id === session.id && order.order_status === 'PAID')
          .at(-1)?.order_id as string)
      : '',
    amount: { value, currency: 'INR' },
  });
