import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FAKE } from '../../functions/adapters/psp/checkout-com/test/fake.ts';
import { PAYPAL_FAKE } from '../../functions/adapters/psp/paypal/test/fake.ts';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Payment } from '../../functions/domain/payment.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { paypal: PAYPAL_FAKE, checkout_com: CHECKOUT_FAKE };

/**
 * Deferred capture (docs/orchestration.md#deferred-capture) against what the checkout counts as the link's open
 * session: an attempt past its session's end is no longer counted, so another buyer may be given a new session;
 * the old attempt's approval must then never be captured. And a released attempt's authorization is voided, even
 * when the first void fails.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let key: IssuedApiKey;
let paypal: PspConnection;
let checkoutCom: PspConnection;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  stack = psps.stack;
  key = await stack.issueKey('capturerace', 'test');
  paypal = await psps.connect('capturerace', 'paypal');
  checkoutCom = await psps.connect('capturerace', 'checkout_com');
});
afterAll(() => psps?.stop());

/** The attempt's session ends now, as its clock would have it: its payment and the link's record of it. */
async function endItsSession(
  linkId: string,
  paymentId: string,
  changes: Partial<Payment> = {},
): Promise<void> {
  const ended = new Date(Date.now() - 1_000).toISOString();
  const payment = await paymentRepository().get(linkId, 'test', paymentId);
  if (!payment) throw new Error('no payment');
  await paymentRepository().save(
    { ...payment, ...changes, session_expires_at: ended, version: payment.version + 1 },
    payment,
  );
  const link = await storedLink(linkId);
  if (!link.psp_session) throw new Error('no session');
  await linkRepository().update(link, {
    ...link,
    psp_session: { ...link.psp_session, expires_at: ended },
    version: link.version + 1,
  });
}

describe('deferred capture: an attempt past its session’s end', () => {
  it('is never captured once another buyer was given a new session of the single-use link', async () => {
    const link = await createLink(stack, key.api_key, { connections: [paypal.id] });
    await navigate(link.checkout_url);
    const first = (await storedLink(link.id)).psp_session;
    if (!first) throw new Error('no session');
    // The first buyer approves at the last moment; their return comes after the session's end.
    const order = psps.paypal.approve(first.id);
    await endItsSession(link.id, first.payment_id);
    await navigate(link.checkout_url);
    const second = (await storedLink(link.id)).psp_session;
    expect(second?.id).not.toBe(first.id);

    expect((await navigate(`${order.return_url}&token=${order.id}`)).status).toBe(200);
    expect(psps.paypal.captures.get(first.id)).toBeUndefined();
    expect((await paymentRepository().get(link.id, 'test', first.payment_id))?.status).toBe('canceled');
    // The second buyer's order is the link's one payable session, and pays it.
    const secondOrder = psps.paypal.approve(second?.id as string);
    await navigate(`${secondOrder.return_url}&token=${secondOrder.id}`);
    const paid = await storedLink(link.id);
    expect(paid.status).toBe('paid');
    expect(paid.payment?.id).toBe(second?.payment_id);
  });

  // A capture claimed before the session's end whose answer was lost leaves the attempt pending with its claim;
  // the checkout counts open sessions by their end alone (`openSessions`), so the next buyer gets a new session and
  // pays it. The first attempt's retried capture (its PSP's notification) must then not take the money again.
  it('is captured at most once beside another buyer’s session when its capture was claimed before the end', async () => {
    const link = await createLink(stack, key.api_key, { connections: [paypal.id] });
    await navigate(link.checkout_url);
    const first = (await storedLink(link.id)).psp_session;
    if (!first) throw new Error('no session');
    psps.paypal.approve(first.id);
    // The buyer's return claimed the capture just before the session's end, and the capture's answer was lost.
    await endItsSession(link.id, first.payment_id, { capture: 'claimed' });
    await navigate(link.checkout_url);
    const shown = (await storedLink(link.id)).psp_session;

    // The next buyer approves their order and returns before the first capture is tried again.
    if (shown && shown.id !== first.id) {
      const next = psps.paypal.approve(shown.id);
      await navigate(`${next.return_url}&token=${next.id}`);
    }
    const { body, headers } = psps.paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: first.id });
    const notified = await stack.request('POST', `/psp/paypal/notifications/${paypal.id}`, {
      rawBody: body,
      headers,
    });
    expect(notified.status).toBe(200);
    const captured = [first.id, shown?.id].filter((id) => id && psps.paypal.captures.get(id));
    expect(new Set(captured).size).toBe(1);
  });
});

describe('deferred capture: a released attempt’s authorization', () => {
  it('is voided when Checkout.com sends its approval again after a void that failed', async () => {
    const checkout = psps.checkout_com;
    const link = await createLink(stack, key.api_key, { connections: [checkoutCom.id] });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('no session');
    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    // Checkout.com's link cannot be ended: the buyer still authorizes on it, after the cancel released the attempt.
    const payment = await checkout.pay(session.id);
    const approved = checkout.webhooks.find((body) => body.includes(payment.id)) as string;
    const deliver = () => {
      const { body, headers } = checkout.signed(approved);
      return stack.request('POST', `/psp/checkout_com/notifications/${checkoutCom.id}`, {
        rawBody: body,
        headers,
      });
    };
    checkout.voidsFail = true;
    const failed = await deliver();
    // Not acknowledged: Checkout.com delivers it again, and only that delivery can void the authorization.
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(payment.status).toBe('Authorized');
    checkout.voidsFail = false;
    expect((await deliver()).status).toBe(200);
    expect(payment.status).toBe('Voided');
    expect(payment.actions.map((action) => action.type)).not.toContain('Capture');
    expect((await paymentRepository().get(link.id, 'test', session.payment_id))?.status).toBe('canceled');
    expect((await storedLink(link.id)).status).toBe('canceled');
  });

  // An ending (cancel, expiry, a replacing attempt) that reads the attempt back approved releases it and voids the
  // authorization it just saw (`stillPayable`, functions/use-cases/session-endings.ts): its approval's notification,
  // if lost, was the only other sighting, and the sweeper no longer asks about a settled (canceled) attempt.
  it('is voided by a cancel that finds it authorized, its approval’s notification lost', async () => {
    const checkout = psps.checkout_com;
    const link = await createLink(stack, key.api_key, { connections: [checkoutCom.id] });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('no session');
    const payment = await checkout.pay(session.id);
    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(200);
    expect((await paymentRepository().get(link.id, 'test', session.payment_id))?.status).toBe('canceled');
    expect(payment.status).toBe('Voided');
  });
});
