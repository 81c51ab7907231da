import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { type FakeSession, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { debitFailed } from '../../functions/adapters/psp/stripe/test/fake-declines.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { logger } from '../../functions/logger.ts';
import { linkEndings } from '../../functions/psp-dependencies.ts';
import { expireDueLinks } from '../../functions/use-cases/payment-links.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { OUTCOMES_AT_ONCE, openedSession } from '../support/session-outcomes.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';
import { buyer, sessionOf } from './reusable-links.ts';

/**
 * What a single-use link does while a payment's money is under way past its session's end (a SEPA Direct Debit at
 * Stripe: docs/orchestration.md#money-under-way, #one-payable-session): that session still counts as open, so no
 * other buyer gets a second one, a cancel answers 409 `invalid_state` saying why and the expiry sweeper waits, both
 * without asking Stripe, and the debit, once Stripe settles it, is the link's one payment; returned, it frees the
 * link, which a cancel then cancels and the sweeper expires.
 */

const FAKES = { stripe: STRIPE_FAKE };
let psps: PspStack<typeof FAKES>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false, environment: OUTCOMES_AT_ONCE } });
});
afterAll(() => psps?.stop());
afterEach(() => {
  vi.restoreAllMocks();
});

/** Other buyers, each from their own address, opening the link at once. */
const BUYERS = ['127.0.0.21', '127.0.0.22', '127.0.0.23', '127.0.0.24'];

/** The link's and its payment's records moved an hour back, as the hours pass: its session's end is past. */
async function sessionEnded(opened: Awaited<ReturnType<typeof openedSession>>) {
  const ended = new Date(Date.now() - 3_600_000).toISOString();
  const payments = paymentRepository();
  const payment = await payments.get(opened.link.id, 'test', opened.session.payment_id);
  if (!payment) throw new Error('no payment');
  await payments.save({ ...payment, session_expires_at: ended, version: payment.version + 1 }, payment);
  await documentClient().send(
    new UpdateCommand({
      TableName: psps.stack.tableName,
      Key: keys.link(opened.link.id, 'test'),
      UpdateExpression: 'SET psp_session.expires_at = :ended',
      ExpressionAttributeValues: { ':ended': ended },
    }),
  );
}

/** Stripe's signed notification `type` about `object`, to the connection's notification endpoint. */
function notifyStripe(connectionId: string, type: string, object: FakeSession) {
  const event = psps.stripe.signedEvent(type, object, STRIPE_FAKE.credentials.webhook_secret);
  return psps.stack.request('POST', `/psp/stripe/notifications/${connectionId}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
}

interface DebitUnderWay {
  /** Its session's end has passed (default), else it is still ahead. */
  pastItsEnd?: boolean;
  /** The sweeper's check found it (by default past its end): else its check is not yet due. */
  swept?: boolean;
  /** Stripe's notification of the completed session arrived (default), else it was lost. */
  notified?: boolean;
  /** The link's `expires_at`, for the expiry sweeper. */
  expiresAt?: string;
}

/**
 * A shop's single-use link whose buyer paid by SEPA Direct Debit while the debit is under way, as Stripe's
 * notification of the completed session said and the sweeper finds it, each unless told otherwise.
 */
async function debitUnderWay(shop: string, options: DebitUnderWay = {}) {
  const { pastItsEnd = true, swept = pastItsEnd, notified = true, expiresAt } = options;
  const opened = await openedSession(psps, shop, 'stripe', expiresAt ? { expires_at: expiresAt } : {});
  const { stack, stripe } = psps;
  const notify = (type: string, object: FakeSession) => notifyStripe(opened.connection.id, type, object);
  const completed = stripe.completeSession(opened.session.id, { async: true, method: 'sepa_debit' });
  if (notified) expect((await notify('checkout.session.completed', completed)).status).toBe(200);
  if (pastItsEnd) await sessionEnded(opened);
  if (swept) await sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
  const payment = await paymentRepository().get(opened.link.id, 'test', opened.session.payment_id);
  expect(payment?.status).toBe('pending');
  expect(payment?.money_under_way).toBe(notified || swept ? true : undefined);
  const cancel = () =>
    stack.request('POST', `/v1/payment-links/${opened.link.id}/cancel`, { key: opened.key });
  /** The requests Stripe got about the debit's session (ending it, reading it back) from here on. */
  const aboutTheSession = () =>
    stripe.requests.filter((request) => request.path.includes(opened.session.id)).length;
  const before = aboutTheSession();
  return { ...opened, notify, cancel, stripeCalls: () => aboutTheSession() - before };
}

/** The merchant's cancel held back by the debit: a 409 that says why and until when, not a 503 to retry. */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON answer, asserted on by the tests
function expectHeldByTheDebit(response: { status: number; headers: Headers; body: any }) {
  expect(response.status).toBe(409);
  expect(response.headers.get('retry-after')).toBeNull();
  expect(response.body).toMatchObject({
    code: 'invalid_state',
    detail: expect.stringContaining(
      'is being collected by its payment provider (a bank debit can take days)',
    ),
  });
  expect(response.body.detail).toContain('can be canceled once that payment settles');
  expect(response.body.detail).toContain('`payment_link.paid` or `payment_link.payment_failed`');
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
    const { key, link, session, notify, cancel, outcome } = await debitUnderWay('sepaholds');
    const before = psps.stripe.sessions.size;
    // Each is shown that session again, as any session its PSP will not end, and none gets a second one.
    expect(await othersOpen(link.checkout_url, session.url)).toBe(before);
    expect((await storedLink(link.id)).psp_session?.id).toBe(session.id);
    expectHeldByTheDebit(await cancel());

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
    const { link, session, cancel } = await debitUnderWay('sepanotified', { swept: false });
    const before = psps.stripe.sessions.size;
    const [held] = await Promise.all([cancel(), othersOpen(link.checkout_url, session.url)]);
    expectHeldByTheDebit(held);
    expect(psps.stripe.sessions.size).toBe(before);
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('is payable again, and can be canceled, once the bank returns the debit', async () => {
    const { session, link, notify, cancel, outcome } = await debitUnderWay('sepafrees');
    expectHeldByTheDebit(await cancel());
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

describe('the merchant’s cancel of a link whose debit is under way', () => {
  it('answers 409 invalid_state, saying why, without asking Stripe, before and past the session’s end', async () => {
    for (const [shop, pastItsEnd] of [
      ['sepacancelbefore', false],
      ['sepacancelpast', true],
    ] as const) {
      const { link, cancel, stripeCalls } = await debitUnderWay(shop, { pastItsEnd });
      const responses = await Promise.all([cancel(), cancel(), cancel()]);
      for (const response of responses) expectHeldByTheDebit(response);
      expect(stripeCalls(), shop).toBe(0);
      expect((await storedLink(link.id)).status).toBe('open');
    }
  });

  it('answers the same 409 when only Stripe, asked to end the session, says the debit is under way', async () => {
    // Its notification lost and no sweeper check yet: nothing stored says so.
    const { link, cancel, stripeCalls } = await debitUnderWay('sepaunread', {
      pastItsEnd: false,
      notified: false,
    });
    expectHeldByTheDebit(await cancel());
    expect(stripeCalls()).toBeGreaterThan(0);
    expect((await storedLink(link.id)).status).toBe('open');
  });
});

describe('the merchant’s cancel of a reusable link one of whose buyers’ debits is under way', () => {
  it('ends the other buyers’ sessions, asks Stripe nothing of the debit’s, and answers 409 invalid_state', async () => {
    const key = (await psps.stack.issueKey('separeusable', 'test')).api_key;
    const connection = await psps.connect('separeusable', 'stripe');
    const link = await createLink(psps.stack, key, { reusable: true, connections: [connection.id] });
    const [debtor, other] = [buyer(), buyer()];
    await debtor.visit(link.checkout_url);
    await other.visit(link.checkout_url);
    const [debit, open] = await Promise.all([
      sessionOf(link.id, debtor.payment),
      sessionOf(link.id, other.payment),
    ]);
    const completed = psps.stripe.completeSession(debit.id, { async: true, method: 'sepa_debit' });
    expect((await notifyStripe(connection.id, 'checkout.session.completed', completed)).status).toBe(200);
    const about = (session: { id: string }) =>
      psps.stripe.requests.filter((request) => request.path.includes(session.id)).length;
    const asked = about(debit);

    expectHeldByTheDebit(await psps.stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key }));
    expect(about(debit)).toBe(asked);
    expect(psps.stripe.sessions.get(open.id)?.status).toBe('expired');
    expect(await paymentRepository().get(link.id, 'test', open.paymentId)).toMatchObject({
      status: 'canceled',
    });
    expect((await storedLink(link.id)).status).toBe('open');
  });
});

describe('the checkout beside a debit under way that nothing stored yet', () => {
  it('shows that session again once Stripe refused to end it, and asks no more', async () => {
    const { link, session, key, stripeCalls } = await debitUnderWay('sepadropped', {
      pastItsEnd: false,
      notified: false,
    });
    // The merchant's correction drops the session from the link; Stripe will not end it (it is complete).
    const patched = await psps.stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key,
      body: { description: 'Order 1002' },
    });
    expect(patched.status).toBe(200);
    const asked = stripeCalls();
    const page = await httpRequest(link.checkout_url, {
      headers: NAVIGATION_HEADERS,
      localAddress: BUYERS[0],
    });
    expect(page.text).toContain(session.url);
    // One ending and its read-back, which says the debit is under way: the session is shown, not asked about again.
    expect(stripeCalls() - asked).toBe(2);
  });
});

describe('the pending-payment sweeper beside a link paid meanwhile', () => {
  it('asks again later about a debit under way that Stripe will not end, as about any session still payable', async () => {
    const { link, session } = await debitUnderWay('sepabesidepaid', { pastItsEnd: false });
    // Paid meanwhile through another path (a stray session's payment) whose ending of the others did not go through.
    const stored = await storedLink(link.id);
    await linkRepository().update(stored, {
      ...stored,
      status: 'paid',
      psp_session: null,
      version: stored.version + 1,
    });
    const at = new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000);
    await sweepPendingPayments(at);
    const payment = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(payment).toMatchObject({ status: 'pending', money_under_way: true, checks: 1 });
    expect(Date.parse(payment?.next_check_at ?? '')).toBeGreaterThan(at.getTime());
  });
});

/** The expiry sweeper, as its schedule runs it, at `at`; what it did, and what it logged at WARN or above. */
async function expireAt(at: Date) {
  const warn = vi.spyOn(logger, 'warn');
  const error = vi.spyOn(logger, 'error');
  const result = await expireDueLinks({ ...linkEndings(), now: () => at }, 500);
  const logged = [...warn.mock.calls, ...error.mock.calls].map(([message]) => message);
  warn.mockRestore();
  error.mockRestore();
  return { result, logged };
}

describe('the expiry of a link whose debit is under way', () => {
  const expiresAt = () => new Date(Date.now() + 3_600_000).toISOString();
  const runs = [2, 3, 4].map((hours) => new Date(Date.now() + hours * 3_600_000));

  it('waits, asking Stripe nothing and logging no warning, then expires the link once the debit is returned', async () => {
    const { link, session, notify, stripeCalls, outcome } = await debitUnderWay('sepaexpires', {
      expiresAt: expiresAt(),
    });
    for (const run of runs) {
      const { result, logged } = await expireAt(run);
      expect(result.failed).toBe(0);
      expect(logged).toEqual([]);
    }
    expect(stripeCalls()).toBe(0);
    expect((await storedLink(link.id)).status).toBe('open');

    const returned = psps.stripe.failAsyncPayment(session.id, debitFailed('insufficient_funds'));
    expect((await notify('checkout.session.async_payment_failed', returned)).status).toBe(200);
    const calls = stripeCalls();
    const { logged } = await expireAt(runs[2] as Date);
    expect(logged).toEqual([]);
    expect(stripeCalls()).toBe(calls);
    expect((await storedLink(link.id)).status).toBe('expired');
    expect((await outcome()).events.sort()).toEqual(['payment_link.expired', 'payment_link.payment_failed']);
  });

  it('never expires a link whose debit is collected: it is paid', async () => {
    const { link, session, notify, stripeCalls, outcome } = await debitUnderWay('sepacollected', {
      expiresAt: expiresAt(),
    });
    for (const run of runs.slice(0, 2)) expect((await expireAt(run)).logged).toEqual([]);
    expect(stripeCalls()).toBe(0);
    expect(
      (await notify('checkout.session.async_payment_succeeded', psps.stripe.settleAsyncPayment(session.id)))
        .status,
    ).toBe(200);
    const calls = stripeCalls();
    expect((await expireAt(runs[2] as Date)).logged).toEqual([]);
    expect(stripeCalls()).toBe(calls);
    expect((await storedLink(link.id)).status).toBe('paid');
    expect((await outcome()).events).toEqual(['payment_link.paid']);
  });
});
