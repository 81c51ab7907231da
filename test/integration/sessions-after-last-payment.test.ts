import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYPAL_FAKE } from '../../functions/adapters/psp/paypal/test/fake.ts';
import { config } from '../../functions/config.ts';
import { linkRepository, paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Amount } from '../../functions/domain/money.ts';
import {
  FIRST_CHECK_AFTER_MS,
  newPaymentId,
  type Payment,
  startedPayment,
} from '../../functions/domain/payment.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { captureOnReturn } from '../../functions/use-cases/buyer-returns.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { sessionRequest } from '../support/psp-fixtures.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { paypal: PAYPAL_FAKE };

/**
 * A single-use link's payment ends the link's other open sessions on every path that records it, as a reusable
 * link's last payment does (docs/orchestration.md#one-payable-session): a session left open at another PSP (a
 * lost race, an earlier attempt its PSP could not end) is not payable until the sweeper's first check.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let key: IssuedApiKey;
let paypal: PspConnection;
let sandbox: PspConnection;
/** Where the stray session is open: another sandbox connection. */
let other: PspConnection;

beforeAll(async () => {
  // The sweepers run only when a test runs them: a timer's run would end the stray session before the assertions.
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  stack = psps.stack;
  key = await stack.issueKey('straysshop', 'test');
  paypal = await psps.connect('straysshop', 'paypal');
  sandbox = await psps.connect('straysshop', 'sandbox');
  other = await psps.connect('straysshop', 'sandbox');
});
afterAll(() => psps?.stop());

/** A link served by `connection`, whose buyer was sent to its session. */
async function opened(connection: PspConnection) {
  const link = await createLink(stack, key.api_key, { connections: [connection.id] });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no session');
  return { linkId: link.id as string, session };
}

/** A second open session of the link at the other sandbox connection, recorded as its pending payment. */
async function strayAttempt(linkId: string): Promise<Payment> {
  const link = await storedLink(linkId);
  const paymentId = newPaymentId(new Date());
  const psp = await pspConnections().adapter(other);
  const session = await psp.createSession(sessionRequest(link, other, paymentId));
  const amount = link.amount as Amount;
  const payment = startedPayment({ id: paymentId, link, connection: other, amount }, session, new Date());
  await paymentRepository().save(payment);
  return payment;
}

/** The stray session can no longer be paid: its PSP ended it, and its payment says so. */
async function expectEnded(linkId: string, stray: Payment): Promise<void> {
  expect((await sandboxSessionStore().get(stray.session_id as string))?.status).toBe('expired');
  expect((await paymentRepository().get(linkId, 'test', stray.id))?.status).toBe('canceled');
}

describe('a single-use link’s payment ends the link’s other open sessions', () => {
  it('on the buyer’s return from PayPal, which captures the approved order', async () => {
    const { linkId, session } = await opened(paypal);
    const stray = await strayAttempt(linkId);
    const order = psps.paypal.approve(session.id);
    expect((await navigate(`${order.return_url}&token=${order.id}`)).status).toBe(200);
    expect((await storedLink(linkId)).status).toBe('paid');
    await expectEnded(linkId, stray);
  });

  it('on the PSP’s notification', async () => {
    const { linkId, session } = await opened(sandbox);
    const stray = await strayAttempt(linkId);
    await sandboxSessionStore().complete(session.id, `sbpay_${session.id}`, new Date());
    const { rawBody, headers } = sandboxNotification({ session_id: session.id, link_id: linkId });
    const response = await stack.request('POST', `/psp/sandbox/notifications/${sandbox.id}`, {
      rawBody,
      headers,
    });
    expect(response.body.outcome).toBe('paid');
    await expectEnded(linkId, stray);
  });

  it('when a cancel finds the link’s session paid', async () => {
    const { linkId, session } = await opened(sandbox);
    const stray = await strayAttempt(linkId);
    await sandboxSessionStore().complete(session.id, `sbpay_${session.id}`, new Date());
    const canceled = await stack.request('POST', `/v1/payment-links/${linkId}/cancel`, { key: key.api_key });
    expect(canceled.status).toBe(409);
    expect((await storedLink(linkId)).status).toBe('paid');
    await expectEnded(linkId, stray);
  });

  it('leaves them to the sweeper where a buyer waits and a round of endings no longer fits the time left', async () => {
    const { linkId, session } = await opened(paypal);
    const stray = await strayAttempt(linkId);
    psps.paypal.approve(session.id);
    const deps = {
      links: linkRepository(),
      payments: paymentRepository(),
      psps: pspConnections(),
      now: () => new Date(),
      checkoutBase: config().CHECKOUT_BASE,
      timeLeftMs: () => PSP_CALL_TIMEOUT_MS,
    };
    await captureOnReturn(deps, await storedLink(linkId), session.payment_id);
    expect((await storedLink(linkId)).status).toBe('paid');
    expect((await sandboxSessionStore().get(stray.session_id as string))?.status).toBe('open');
  });

  it('at the sweeper’s first check of a session left open beside a paid link', async () => {
    const { linkId } = await opened(sandbox);
    const stray = await strayAttempt(linkId);
    // Paid meanwhile through another path whose ending of the others did not go through.
    const link = await storedLink(linkId);
    await linkRepository().update(link, {
      ...link,
      status: 'paid',
      psp_session: null,
      version: link.version + 1,
    });
    await sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    await expectEnded(linkId, stray);
  });
});
