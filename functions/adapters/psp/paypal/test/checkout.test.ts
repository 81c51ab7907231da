import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { eventually } from '../../../../../test/support/eventually.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import { MONTHLY, runAt, stored } from '../../../../../test/support/subscriptions.ts';
import { sweepPendingPayments, sweepPendingRefunds } from '../../../../../test/support/sweepers.ts';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import { config } from '../../../../config.ts';
import { linkRepository, paymentRepository, pspConnectionRepository } from '../../../../dependencies.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import { FIRST_CHECK_AFTER_MS } from '../../../../domain/payment.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { type FakePaypal, type FakePaypalDelivery, PAYPAL_FAKE } from './fake.ts';

const FAKES = { paypal: PAYPAL_FAKE };

/**
 * Checkout through a PayPal connection, end to end through the handlers: an order per attempt, captured by us on
 * the buyer's return or on PayPal's notification, whichever comes first, once, and only while the link can
 * still be paid (docs/orchestration.md#deferred-capture).
 */
let psps: PspStack<typeof FAKES>;
let paypal: FakePaypal;
let stack: TestStack;
let key: IssuedApiKey;
let connection: PspConnection;
let sandbox: PspConnection;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, paypal } = psps);
  key = await stack.issueKey('paypalshop', 'test');
  connection = await psps.connect('paypalshop', 'paypal');
  sandbox = await psps.connect('paypalshop', 'sandbox');
});
afterAll(() => psps?.stop());

const notify = (delivery: FakePaypalDelivery) =>
  stack.request('POST', `/psp/paypal/notifications/${connection.id}`, {
    rawBody: delivery.body,
    headers: { 'content-type': 'application/json', ...delivery.headers },
  });

/** A PayPal-only link the buyer has opened: its order at the fake. */
async function openedAtPaypal(body: Record<string, unknown> = {}) {
  const link = await createLink(stack, key.api_key, { connections: [connection.id], ...body });
  const page = await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no PayPal session');
  const order = paypal.orders.get(session.id);
  if (!order) throw new Error('no PayPal order');
  return { link, page, session, order };
}

const readLink = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: key.api_key })).body;

describe('checkout through a PayPal connection', () => {
  it('opens an order whose return address is ours, and captures it on CHECKOUT.ORDER.APPROVED', async () => {
    const { link, page, session, order } = await openedAtPaypal({
      redirect_url: 'https://shop.example/thanks',
    });
    expect(session).toMatchObject({ provider: 'paypal', connection_id: connection.id });
    expect(page.headers['content-security-policy']).toMatch(
      /form-action https:\/\/www\.sandbox\.paypal\.com;/,
    );
    expect(order.return_url).toBe(
      `${config().CHECKOUT_BASE}/${link.id}/complete?payment=${session.payment_id}`,
    );

    // Nothing moves until the buyer approves: an order awaiting approval is not captured.
    expect(
      (await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }))).body.outcome,
    ).toBe('ignored');
    paypal.approve(order.id);
    const response = await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }));
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('paid');
    expect(paypal.captures.get(order.id)).toBe(1);
    expect(await readLink(link.id)).toMatchObject({
      status: 'paid',
      payment: { id: session.payment_id, provider: 'paypal', reference: order.capture?.id },
    });
    // PayPal's PAYMENT.CAPTURE.COMPLETED follows: the same payment, nothing new.
    const completed = await notify(paypal.delivery('PAYMENT.CAPTURE.COMPLETED', { orderId: order.id }));
    expect(completed.body.outcome).toBe('already_paid');
    expect(paypal.violations).toEqual([]);
  });

  it("records PayPal's fee of the capture as reported, and the configured estimate of a capture without one", async () => {
    await pspConnectionRepository().setFees(connection.id, [{ percent: 3, fixed: 0 }]);
    const capturedWith = async (fee: string | undefined) => {
      const { link, order } = await openedAtPaypal({ amount: { value: '20.00', currency: 'EUR' } });
      paypal.approve(order.id);
      paypal.captureFee = fee;
      await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }));
      paypal.captureFee = undefined;
      const read = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key });
      return read.body.data[0];
    };
    expect(await capturedWith('1.05')).toMatchObject({
      status: 'succeeded',
      fee: { value: '1.05', currency: 'EUR' },
      net: { value: '18.95', currency: 'EUR' },
      fee_source: 'reported',
    });
    expect(await capturedWith(undefined)).toMatchObject({
      status: 'succeeded',
      fee: { value: '0.60', currency: 'EUR' },
      net: { value: '19.40', currency: 'EUR' },
      fee_source: 'configured',
    });
    await pspConnectionRepository().setFees(connection.id, []);
    expect(paypal.violations).toEqual([]);
  });

  it('captures once when the buyer’s return and the notification come together, and sends the buyer on', async () => {
    const { link, order } = await openedAtPaypal({ redirect_url: 'https://shop.example/thanks' });
    paypal.approve(order.id);
    const back = new URL(order.return_url);
    back.searchParams.set('token', order.id);
    const [returned, notified] = await Promise.all([
      navigate(back.toString()),
      notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id })),
    ]);
    expect(returned.status).toBe(303);
    expect(returned.headers.location).toBe('https://shop.example/thanks');
    expect(notified.status).toBe(200);
    expect(paypal.captures.get(order.id)).toBe(1);
    expect((await readLink(link.id)).status).toBe('paid');
    const payments = (
      await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key })
    ).body.data;
    expect(payments.filter((payment: { status: string }) => payment.status === 'succeeded')).toHaveLength(1);
  });

  it('shows the buyer back on our page the payment the return just captured', async () => {
    const { link, order } = await openedAtPaypal();
    paypal.approve(order.id);
    const page = await navigate(`${order.return_url}&token=${order.id}&PayerID=FAKEPAYER7`);
    expect(page.status).toBe(200);
    expect(paypal.captures.get(order.id)).toBe(1);
    expect((await storedLink(link.id)).status).toBe('paid');
  });

  it('never captures an order approved after its link was canceled: the cancel released it', async () => {
    const { link, session, order } = await openedAtPaypal();
    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    expect((await paymentRepository().get(link.id, 'test', session.payment_id))?.capture).toBe('released');
    // The buyer was still on PayPal's page and approved anyway.
    paypal.approve(order.id);
    const response = await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }));
    expect(response.status).toBe(200);
    expect(paypal.captures.get(order.id)).toBeUndefined();
    const back = await navigate(`${order.return_url}&token=${order.id}`);
    expect(back.status).toBe(200);
    expect(paypal.captures.get(order.id)).toBeUndefined();
    expect((await readLink(link.id)).status).toBe('canceled');
  });

  it('never captures an attempt approved after the link was paid through another attempt', async () => {
    const { link, session, order } = await openedAtPaypal();
    // Another attempt paid the link meanwhile (what a duplicate session at another PSP would do).
    const stored = await storedLink(link.id);
    await linkRepository().update(stored, {
      ...stored,
      status: 'paid',
      psp_session: null,
      version: stored.version + 1,
    });
    paypal.approve(order.id);
    await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }));
    expect(paypal.captures.get(order.id)).toBeUndefined();
    expect((await paymentRepository().get(link.id, 'test', session.payment_id))?.status).toBe('canceled');
  });

  it('has the sweeper capture an approved order whose notification and return were both lost', async () => {
    const { link, order } = await openedAtPaypal();
    paypal.approve(order.id);
    await sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 60_000));
    expect(paypal.captures.get(order.id)).toBe(1);
    expect((await storedLink(link.id)).status).toBe('paid');
  });

  it('refunds through PayPal and settles the refund on PAYMENT.CAPTURE.REFUNDED', async () => {
    const { link, order } = await openedAtPaypal({ amount: { value: '20.00', currency: 'EUR' } });
    paypal.approve(order.id);
    await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }));
    const created = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '5.00', currency: 'EUR' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    const refund = [...paypal.refunds.values()].find((candidate) => candidate.invoice_id === created.body.id);
    expect(refund?.custom_id).toBe(link.id);
    paypal.setRefundStatus(refund?.id as string, 'COMPLETED');
    const settled = await notify(
      paypal.delivery('PAYMENT.CAPTURE.REFUNDED', { refundId: refund?.id as string }),
    );
    expect(settled.body.outcome).toBe('refunded');
    const refunds = (await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: key.api_key }))
      .body.data;
    expect(refunds[0]).toMatchObject({ id: created.body.id, status: 'succeeded' });
    expect(paypal.violations).toEqual([]);
  });

  it('has the refund sweeper read back a refund whose PAYMENT.CAPTURE.REFUNDED was lost', async () => {
    const { link, order } = await openedAtPaypal({ amount: { value: '20.00', currency: 'EUR' } });
    paypal.approve(order.id);
    await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }));
    const created = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: key.api_key,
      body: { amount: { value: '20.00', currency: 'EUR' } },
    });
    const refund = [...paypal.refunds.values()].find((candidate) => candidate.invoice_id === created.body.id);
    paypal.setRefundStatus(refund?.id as string, 'COMPLETED');
    await sweepPendingRefunds(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 60_000));
    const refunds = (await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: key.api_key }))
      .body.data;
    expect(refunds[0]).toMatchObject({ id: created.body.id, status: 'succeeded' });
  });

  it('subscribes through the vaulted wallet; a renewal’s capture notification names no link and records nothing', async () => {
    const { link, order } = await openedAtPaypal({ recurring: MONTHLY });
    paypal.approve(order.id);
    expect(
      (await notify(paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id }))).body.outcome,
    ).toBe('paid');
    const listed = await eventually(async () => {
      const page = await stack.request('GET', `/v1/subscriptions?link_id=${link.id}`, { key: key.api_key });
      return page.body.data?.[0];
    });
    const subscription = await stored(listed.id);
    expect(subscription.mandate).toMatchObject({ provider: 'paypal', connection_id: connection.id });

    expect(await runAt(subscription, subscription.current_period_end)).toMatchObject({ current_period: 2 });
    const [renewal] = paypal.vault.renewals.filter((made) => made.token === subscription.mandate.reference);
    const completed = await notify(
      paypal.delivery('PAYMENT.CAPTURE.COMPLETED', { orderId: renewal?.orderId as string }),
    );

    // The renewal was recorded by the sweeper's answer; its order names the subscription, no link of ours.
    expect(completed.status).toBe(200);
    expect(completed.body.outcome).toBe('ignored');
    expect((await readLink(link.id)).payment).toMatchObject({ id: order.purchase_units[0]?.invoice_id });
    expect(paypal.violations).toEqual([]);
  });

  it('refuses (400) a delivery PayPal does not verify', async () => {
    const { order } = await openedAtPaypal();
    const delivery = paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id });
    const forged = { ...delivery, headers: { ...delivery.headers, 'paypal-transmission-sig': 'forged' } };
    const response = await notify(forged);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_notification');
  });
});

describe('failover from PayPal', () => {
  it('opens the next connection’s session when PayPal is down, recording the PayPal attempt as unavailable', async () => {
    paypal.outage = 'error';
    try {
      const link = await createLink(stack, key.api_key, { connections: [connection.id, sandbox.id] });
      await navigate(link.checkout_url);
      expect((await storedLink(link.id)).psp_session).toMatchObject({ connection_id: sandbox.id });
      const payments = (
        await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key })
      ).body.data;
      expect(payments).toContainEqual(
        expect.objectContaining({
          connection_id: connection.id,
          provider: 'paypal',
          status: 'failed',
          failure: expect.objectContaining({ code: 'psp_unavailable' }),
        }),
      );
    } finally {
      paypal.outage = 'none';
    }
  });
});
