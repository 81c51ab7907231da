import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { type FakeSession, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { debitFailed } from '../../functions/adapters/psp/stripe/test/fake-declines.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { paymentRepository } from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { OUTCOMES_AT_ONCE, openedSession } from '../support/session-outcomes.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';

/**
 * What a single-use link does while a payment's money is under way past its session's end (a SEPA Direct Debit at
 * Stripe: docs/orchestration.md#missed-notifications, #one-payable-session): that session still counts as open,
 * so no other buyer gets a second one and a cancel waits (503), and the debit, once Stripe settles it, is the
 * link's one payment; returned, it frees the link.
 */

const FAKES = { stripe: STRIPE_FAKE };
let psps: PspStack<typeof FAKES>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false, environment: OUTCOMES_AT_ONCE } });
});
afterAll(() => psps?.stop());

/** Other buyers, each from their own address, opening the link at once. */
const BUYERS = ['127.0.0.21', '127.0.0.22', '127.0.0.23', '127.0.0.24'];

/**
 * A shop's single-use link whose buyer paid by SEPA Direct Debit, the session's end then passing (its records
 * moved an hour back, as the hours pass) while the debit is under way, as Stripe's notification of the completed
 * session said, and as the sweeper finds it (unless `swept` is false: its check not yet due).
 */
async function debitUnderWayPastItsEnd(shop: string, { swept } = { swept: true }) {
  const opened = await openedSession(psps, shop, 'stripe');
  const { stack, stripe } = psps;
  const notify = (type: string, object: FakeSession) => {
    const event = stripe.signedEvent(type, object, STRIPE_FAKE.credentials.webhook_secret);
    return stack.request('POST', `/psp/stripe/notifications/${opened.connection.id}`, {
      rawBody: event.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
    });
  };
  const completed = stripe.completeSession(opened.session.id, { async: true, method: 'sepa_debit' });
  expect((await notify('checkout.session.completed', completed)).status).toBe(200);
  const ended = new Date(Date.now() - 3_600_000).toISOString();
  const payments = paymentRepository();
  const payment = await payments.get(opened.link.id, 'test', opened.session.payment_id);
  if (!payment) throw new Error('no payment');
  await payments.save({ ...payment, session_expires_at: ended, version: payment.version + 1 }, payment);
  await documentClient().send(
    new UpdateCommand({
      TableName: stack.tableName,
      Key: keys.link(opened.link.id, 'test'),
      UpdateExpression: 'SET psp_session.expires_at = :ended',
      ExpressionAttributeValues: { ':ended': ended },
    }),
  );
  if (swept) await sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
  expect(await payments.get(opened.link.id, 'test', opened.session.payment_id)).toMatchObject({
    status: 'pending',
    money_under_way: true,
  });
  const cancel = () =>
    stack.request('POST', `/v1/payment-links/${opened.link.id}/cancel`, { key: opened.key });
  return { ...opened, notify, cancel };
}

/** Every buyer opens the link at once: each is sent to `sessionUrl`; how many Stripe sessions exist after. */
async function othersOpen(checkoutUrl: string, sessionUrl: string) {
  const pages = await Promise.all(
    BUYERS.map((localAddress) => httpRequest(checkoutUrl, { headers: NAVIGATION_HEADERS, localAddress })),
  );
  for (const page of pages) expect(page.text).toContain(sessionUrl);
  return psps.stripe.sessions.size;
}

describe('a single-use link whose SEPA Direct Debit is under way past its session’s end', () => {
  it('opens no second session, holds a cancel back, and is paid once when the debit is collected', async () => {
    const { key, link, session, notify, cancel, outcome } = await debitUnderWayPastItsEnd('sepaholds');
    const before = psps.stripe.sessions.size;
    // Each is shown that session again, as any session its PSP will not end, and none gets a second one.
    expect(await othersOpen(link.checkout_url, session.url)).toBe(before);
    expect((await storedLink(link.id)).psp_session?.id).toBe(session.id);
    const held = await cancel();
    expect(held.status).toBe(503);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);

    expect(
      (await notify('checkout.session.async_payment_succeeded', psps.stripe.settleAsyncPayment(session.id)))
        .status,
    ).toBe(200);
    const { payment, events } = await outcome();
    expect(payment).toMatchObject({ id: session.payment_id, status: 'succeeded' });
    expect(events).toEqual(['payment_link.paid']);
    expect((await psps.stack.request('GET', `/v1/payment-links/${link.id}`, { key })).body.status).toBe(
      'paid',
    );
    expect((await cancel()).status).toBe(409);
  });

  it('holds a cancel back as soon as Stripe told of the debit, before any sweeper check past the end', async () => {
    const { link, session, cancel } = await debitUnderWayPastItsEnd('sepanotified', { swept: false });
    const before = psps.stripe.sessions.size;
    const [held] = await Promise.all([cancel(), othersOpen(link.checkout_url, session.url)]);
    expect(held.status).toBe(503);
    expect(psps.stripe.sessions.size).toBe(before);
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('is payable again, and can be canceled, once the bank returns the debit', async () => {
    const { session, link, notify, cancel, outcome } = await debitUnderWayPastItsEnd('sepafrees');
    expect((await cancel()).status).toBe(503);
    const returned = psps.stripe.failAsyncPayment(session.id, debitFailed('no_account'));
    expect((await notify('checkout.session.async_payment_failed', returned)).status).toBe(200);
    const { payment, events } = await outcome();
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'lost_or_stolen_card', class: 'hard' },
    });
    expect(events).toEqual(['payment_link.payment_failed']);
    const canceled = await cancel();
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect((await storedLink(link.id)).status).toBe('canceled');
  });
});
