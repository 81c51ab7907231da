import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import { newPaymentLink } from '../../../../domain/payment-link.ts';
import { PspCredentialsRejectedError, PspOutageError, PspRefusalError } from '../../../../ports/psp.ts';
import { canEndSessions } from '../../../../ports/psp-capabilities.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { PaypalPsp } from '../adapter.ts';
import { type FakePaypal, startFakePaypal } from './fake.ts';

/** The PayPal adapter, through the official SDK, against a server that speaks PayPal's REST wire format. */
const credentials = {
  client_id: 'AeA1QIZXiflr1_-r0U2UbWTziOWX1GRQer5OEUCtvB4',
  client_secret: 'ECYYrrSHdKfk_Q0EdvzdGkzj58a66kKaUQ5dZAEv4',
  webhook_id: '8PT597110X687430LKGECATA',
  environment: 'sandbox',
};
const connection = storedConnection('paypal', 'test', 'pc_paypalAdapter00000000000');
const stranger = storedConnection('paypal', 'test', 'pc_paypalStranger0000000000');
let fake: FakePaypal;
let psp: PaypalPsp;
let other: PaypalPsp;
let untrust: () => void;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await startFakePaypal({
    clientId: credentials.client_id,
    clientSecret: credentials.client_secret,
    webhookId: credentials.webhook_id,
  });
  const secrets = new Map([
    [connection.secret_name as string, JSON.stringify(credentials)],
    [stranger.secret_name as string, JSON.stringify({ ...credentials, webhook_id: 'OTHERWEBHOOK0001' })],
  ]);
  const factory = factoryOf<PaypalPsp>(PSP_FACTORIES.paypal, { secrets, apiUrl: fake.url });
  psp = await factory.create(connection);
  other = await factory.create(stranger);
});
afterAll(async () => {
  await fake?.stop();
  untrust?.();
});

const basket = () =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    {
      line_items: [
        { name: 'Beans', quantity: 2, unit_amount: { value: '24.95', currency: 'EUR' }, tax_rate: '9' },
        { name: 'Gift wrap', quantity: 1, unit_amount: { value: '0.50', currency: 'EUR' } },
      ],
      description: 'Order 1002',
    },
    new Date(),
  );

describe('the PayPal adapter', () => {
  it('opens an order with our ids, the lines and their total, the buyer’s locale and our return addresses', async () => {
    const link = basket();
    const request = {
      ...sessionRequest(link, connection, undefined, 'nl-BE'),
      amount: { value: '50.40', currency: 'EUR' },
    };
    const session = await psp.createSession(request);
    expect(session.url).toBe(`${fake.pageUrl}/checkoutnow?token=${session.id}`);
    const order = fake.orders.get(session.id);
    expect(order?.intent).toBe('CAPTURE');
    expect(order?.purchase_units[0]).toMatchObject({
      custom_id: link.id,
      invoice_id: request.paymentId,
      amount: { currency_code: 'EUR', value: '50.40', breakdown: { item_total: { value: '50.40' } } },
      items: [
        { name: 'Beans', quantity: '2' },
        { name: 'Gift wrap', quantity: '1' },
      ],
    });
    expect(order?.return_url).toBe(request.successUrl);
    const created = fake.requests.find((candidate) => candidate.path === '/v2/checkout/orders');
    expect(JSON.parse(created?.body ?? '{}').payment_source.paypal.experience_context.locale).toBe('nl-BE');
    expect(fake.violations).toEqual([]);
  });

  it('reads an order awaiting approval, then approved, and captures it once however often it is asked', async () => {
    const request = sessionRequest(orderLink('12.00'), connection);
    const session = await psp.createSession(request);
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'pending',
      deferredCapture: 'awaiting_approval',
      paymentId: request.paymentId,
      linkId: request.link.id,
      amount: { value: '12.00', currency: 'EUR' },
      livemode: false,
    });
    fake.approve(session.id);
    expect((await psp.retrieveSession(session.id)).deferredCapture).toBe('approved');
    const [first, second] = await Promise.all([
      psp.captureSession?.({ id: session.id, paymentId: request.paymentId }),
      psp.captureSession?.({ id: session.id, paymentId: request.paymentId }),
    ]);
    expect(first?.state).toBe('succeeded');
    expect(second?.state).toBe('succeeded');
    expect(first?.paymentReference).toBe(fake.orders.get(session.id)?.capture?.id);
    expect(fake.captures.get(session.id)).toBe(1);
    expect(fake.violations).toEqual([]);
  });

  it('offers the prefilled e-mail as the PayPal login and reads back the payer who approved the captured order', async () => {
    const request = {
      ...sessionRequest(orderLink('14.00'), connection),
      references: { client_reference_id: 'crm-9', prefilled_email: 'pat@example.com' },
    };
    const session = await psp.createSession(request);
    const sent = JSON.parse(fake.requests.at(-1)?.body ?? '{}');
    expect(sent.payment_source.paypal).toMatchObject({
      email_address: 'pat@example.com',
      experience_context: { shipping_preference: 'NO_SHIPPING' },
    });
    // custom_id and invoice_id carry our own ids: the buyer's reference stays on our payment.
    expect(sent.purchase_units[0]).toMatchObject({
      custom_id: request.link.id,
      invoice_id: request.paymentId,
    });
    fake.approve(session.id, { name: { given_name: 'Pat', surname: 'Example' } });
    const captured = await psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    expect(captured).toMatchObject({
      state: 'succeeded',
      buyer: { email: 'pat@example.com', name: 'Pat Example' },
    });
    expect(fake.violations).toEqual([]);
  });

  it('fails the attempt when PayPal declines the buyer’s funding source at capture', async () => {
    const request = sessionRequest(orderLink('13.00'), connection);
    const session = await psp.createSession(request);
    fake.approve(session.id);
    fake.captureOutcome = 'DECLINED';
    try {
      const status = await psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
      expect(status).toMatchObject({
        state: 'failed',
        failure: { code: 'do_not_honor', message: expect.stringContaining('INSTRUMENT_DECLINED') },
      });
    } finally {
      fake.captureOutcome = 'COMPLETED';
    }
  });

  it('ends no order itself: PayPal has no call to void one, so the use cases release it', async () => {
    // Its adapter does not claim to end sessions (`EndsSessions`): the use cases release the attempt instead.
    expect(canEndSessions(psp)).toBe(false);
  });

  it('takes a delivery PayPal verifies for the connection’s webhook, and names its order or refund', async () => {
    const request = sessionRequest(orderLink('15.00'), connection);
    const session = await psp.createSession(request);
    fake.approve(session.id);
    const approved = fake.delivery('CHECKOUT.ORDER.APPROVED', { orderId: session.id });
    expect(await psp.verifyNotification(approved.body, approved.headers)).toEqual([
      { type: 'CHECKOUT.ORDER.APPROVED', sessionId: session.id, refundReference: null, livemode: false },
    ]);
    await psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    const completed = fake.delivery('PAYMENT.CAPTURE.COMPLETED', { orderId: session.id });
    expect((await psp.verifyNotification(completed.body, completed.headers))[0]?.sessionId).toBe(session.id);
    expect(fake.violations).toEqual([]);
  });

  it('refuses a delivery whose body was changed, one for another webhook, and one without its headers', async () => {
    const session = await psp.createSession(sessionRequest(orderLink('16.00'), connection));
    const delivery = fake.delivery('CHECKOUT.ORDER.APPROVED', { orderId: session.id });
    const forged = delivery.body.replace('CHECKOUT.ORDER.APPROVED', 'CHECKOUT.ORDER.COMPLETED');
    await expect(psp.verifyNotification(forged, delivery.headers)).rejects.toBeInstanceOf(
      InvalidNotificationError,
    );
    await expect(other.verifyNotification(delivery.body, delivery.headers)).rejects.toBeInstanceOf(
      InvalidNotificationError,
    );
    await expect(psp.verifyNotification(delivery.body, {})).rejects.toBeInstanceOf(InvalidNotificationError);
    await expect(psp.verifyNotification('not json', delivery.headers)).rejects.toBeInstanceOf(
      InvalidNotificationError,
    );
  });

  it('refunds a capture with our ids, reads the refund back, and is refused beyond what remains', async () => {
    const request = sessionRequest(orderLink('20.00'), connection);
    const session = await psp.createSession(request);
    fake.approve(session.id);
    const paid = await psp.captureSession?.({ id: session.id, paymentId: request.paymentId });
    const refund = await psp.refund({
      refundId: 're_paypalAdapter0000000001',
      linkId: request.link.id,
      paymentReference: paid?.paymentReference as string,
      amount: { value: '15.00', currency: 'EUR' },
      description: 'Order 1001',
    });
    expect(refund).toMatchObject({
      state: 'pending',
      refundId: 're_paypalAdapter0000000001',
      linkId: request.link.id,
    });
    fake.setRefundStatus(refund.reference, 'COMPLETED');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    const refunded = fake.delivery('PAYMENT.CAPTURE.REFUNDED', { refundId: refund.reference });
    expect((await psp.verifyNotification(refunded.body, refunded.headers))[0]?.refundReference).toBe(
      refund.reference,
    );
    await expect(
      psp.refund({
        refundId: 're_paypalAdapter0000000002',
        linkId: request.link.id,
        paymentReference: paid?.paymentReference as string,
        amount: { value: '10.00', currency: 'EUR' },
      }),
    ).rejects.toBeInstanceOf(PspRefusalError);
    expect(fake.violations).toEqual([]);
  });

  it('refuses locally what PayPal cannot take: a currency it lacks, decimals in HUF', async () => {
    await expect(
      psp.createSession(sessionRequest(orderLink('10.00', 'RON'), connection)),
    ).rejects.toBeInstanceOf(PspRefusalError);
    await expect(
      psp.createSession(sessionRequest(orderLink('10.50', 'HUF'), connection)),
    ).rejects.toBeInstanceOf(PspRefusalError);
    const huf = await psp.createSession(sessionRequest(orderLink('500', 'HUF'), connection));
    expect(fake.orders.get(huf.id)?.purchase_units[0]).toMatchObject({ amount: { value: '500' } });
  });

  it('translates refused credentials and an outage into the closed set of PSP failures', async () => {
    const wrongConnection = storedConnection('paypal', 'test', 'pc_paypalWrongKey00000000000');
    const wrongSecrets = new Map([
      [
        wrongConnection.secret_name as string,
        JSON.stringify({ ...credentials, client_secret: 'WRONGsecretWRONGsecret' }),
      ],
    ]);
    const wrong = await factoryOf<PaypalPsp>(PSP_FACTORIES.paypal, {
      secrets: wrongSecrets,
      apiUrl: fake.url,
    }).create(wrongConnection);
    await expect(wrong.createSession(sessionRequest(orderLink('10.00'), connection))).rejects.toBeInstanceOf(
      PspCredentialsRejectedError,
    );
    fake.outage = 'error';
    try {
      await expect(psp.retrieveSession('5O190127TN364715T')).rejects.toBeInstanceOf(PspOutageError);
    } finally {
      fake.outage = 'none';
    }
  });

  it('refuses a delivery whose transmission fields PayPal would not even check (its 400), without a 5xx', async () => {
    const session = await psp.createSession(sessionRequest(orderLink('17.00'), connection));
    const delivery = fake.delivery('CHECKOUT.ORDER.APPROVED', { orderId: session.id });
    const before = fake.violations.length;
    const headers = { ...delivery.headers, 'paypal-transmission-sig': '+not a signature' };
    await expect(psp.verifyNotification(delivery.body, headers)).rejects.toBeInstanceOf(
      InvalidNotificationError,
    );
    // The fake refused it by PayPal's document: a violation of the request, sent on purpose here.
    expect(fake.violations.splice(before).length).toBeGreaterThan(0);
  });
});
