import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../functions/config.ts';
import {
  eventQueue,
  linkRepository,
  paymentRepository,
  pspConnections,
  sandboxSessionStore,
} from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { checkPendingPayments } from '../../functions/use-cases/payments.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('sweeper', 'test');
});
afterAll(() => stack.stop());

/** The sweeper as its schedule runs it, at `at`. */
const sweep = (at: Date) =>
  checkPendingPayments(
    {
      links: linkRepository(),
      payments: paymentRepository(),
      psps: pspConnections(),
      queue: eventQueue(),
      now: () => at,
      checkoutBase: config().CHECKOUT_BASE,
    },
    100,
  );

describe('the sweeper of missed notifications', () => {
  it('records a payment whose notification was lost, once the payment has been pending for 10 minutes', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    // The buyer paid at the PSP; its notification never arrived.
    await sandboxSessionStore().complete(session.id, `sbpay_lost_${session.id}`, new Date());

    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS - 60_000));
    expect((await storedLink(link.id)).status).toBe('open');

    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    const paid = await storedLink(link.id);
    expect(paid.status).toBe('paid');
    expect(paid.payment).toMatchObject({ id: session.payment_id, reference: `sbpay_lost_${session.id}` });
    const payment = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(payment).toMatchObject({ status: 'succeeded', next_check_at: null });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: key.api_key });
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual(['payment_link.paid']);
  });

  it('asks again with growing intervals while the PSP says pending, and settles it once the session is over', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const start = Date.now();

    await sweep(new Date(start + FIRST_CHECK_AFTER_MS + 1_000));
    const first = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(first).toMatchObject({ status: 'pending', checks: 1 });
    const firstWait = Date.parse(first?.next_check_at as string) - (start + FIRST_CHECK_AFTER_MS + 1_000);

    await sweep(new Date(Date.parse(first?.next_check_at as string) + 1_000));
    const second = await paymentRepository().get(link.id, 'test', session.payment_id);
    const secondWait =
      Date.parse(second?.next_check_at as string) - (Date.parse(first?.next_check_at as string) + 1_000);
    expect(second?.checks).toBe(2);
    expect(secondWait).toBeGreaterThan(firstWait);

    await sweep(new Date(Date.parse(session.expires_at) + 120_000));
    const settled = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(settled).toMatchObject({ status: 'expired', failure: { code: 'expired' }, next_check_at: null });
    expect((await storedLink(link.id)).status).toBe('open');
  });
});
