import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeStripe } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { config } from '../../functions/config.ts';
import { eventQueue, linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../../functions/domain/call-budgets.ts';
import { ConcurrentModificationError } from '../../functions/domain/errors.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import { openCheckout } from '../../functions/use-cases/checkout.ts';
import { expireDueLinks } from '../../functions/use-cases/payment-links.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { NAVIGATION_HEADERS } from '../support/navigate.ts';
import type { TestStack } from '../support/test-stack.ts';
import { buyer, reusableLinkPsps, sessionOf } from './reusable-links.ts';

/**
 * Canceling and expiring a reusable link (docs/orchestration.md#reusable-links): every buyer's open session at the
 * PSP is ended first, and no buyer is sent to a session whose place could not be handed to its payment. Its
 * payments and refunds: test/integration/reusable-links.test.ts.
 */
const psps = reusableLinkPsps();
const { keys, api } = psps;
let stripe: FakeStripe;
let stack: TestStack;
beforeAll(() => {
  ({ stack, stripe } = psps.started());
});

describe('canceling a reusable link', () => {
  it('ends every buyer’s open session at the PSP first', async () => {
    const link = await createLink(stack, keys.stripe.api_key, { reusable: true });
    const buyers = [buyer(), buyer()];
    for (const one of buyers) await one.visit(link.checkout_url);
    const sessions = await Promise.all(buyers.map((one) => sessionOf(link.id, one.payment)));
    expect(sessions.map((session) => stripe.sessions.get(session.id)?.status)).toEqual(['open', 'open']);

    const canceled = await api('stripe', 'POST', `/v1/payment-links/${link.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(sessions.map((session) => stripe.sessions.get(session.id)?.status)).toEqual([
      'expired',
      'expired',
    ]);
    expect((await buyers[0]?.visit(link.checkout_url))?.status).toBe(410);
  });

  it('sends no buyer to a session whose place it could not hand to its payment: the session is ended', async () => {
    const checkout = (links: ReturnType<typeof linkRepository>, linkId: string) =>
      openCheckout(
        {
          links,
          payments: paymentRepository(),
          psps: pspConnections(),
          now: () => new Date(),
          checkoutBase: config().CHECKOUT_BASE,
          baseUrl: config().BASE_URL,
          random: Math.random,
          timeLeftMs: () => 20_000,
          maxPspCalls: CHECKOUT_PSP_CALLS,
        },
        { id: linkId, method: 'GET', headers: NAVIGATION_HEADERS, sourceAddress: '192.0.2.3' },
      );
    const withKeepPlace = (keepPlace: ReturnType<typeof linkRepository>['keepPlace']) =>
      Object.create(linkRepository(), { keepPlace: { value: keepPlace } });
    const endedSession = async (linkId: string) => {
      const [payment] = await paymentRepository().listOfLink(linkId, 'test');
      expect(payment).toMatchObject({ status: 'canceled', ended_unused: true });
      return stripe.sessions.get(payment?.session_id ?? '')?.status;
    };

    // The merchant cancels while the session is being opened, after the opening took its place.
    const canceled = await createLink(stack, keys.stripe.api_key, { reusable: true, max_payments: 2 });
    const cancelFirst = withKeepPlace(async (...args) => {
      const current = await storedLink(canceled.id);
      await linkRepository().commit(cancel(current, new Date()) as NonNullable<ReturnType<typeof cancel>>);
      return linkRepository().keepPlace(...args);
    });
    expect((await checkout(cancelFirst, canceled.id)).kind).toBe('gone');
    expect(await endedSession(canceled.id)).toBe('expired');

    // The write fails otherwise (a timeout, say): the buyer gets the error, and the session is ended first.
    const failing = await createLink(stack, keys.stripe.api_key, { reusable: true, max_payments: 2 });
    const timeout = withKeepPlace(async () => {
      throw new Error('the write timed out');
    });
    await expect(checkout(timeout, failing.id)).rejects.toThrow('the write timed out');
    expect(await endedSession(failing.id)).toBe('expired');
  });

  it('must read the link again once a buyer opened a session after it was read', async () => {
    const link = await createLink(stack, keys.sandbox.api_key, { reusable: true });
    const read = await storedLink(link.id);
    // A buyer's session lands between the cancel's read and its write.
    await linkRepository().noteSession(read);
    const transition = cancel(read, new Date());
    if (!transition) throw new Error('expected a transition');
    await expect(linkRepository().commit(transition)).rejects.toThrow(ConcurrentModificationError);
    // And once canceled, no session is noted any more: the checkout ends the one it opened.
    const current = await storedLink(link.id);
    await linkRepository().commit(cancel(current, new Date()) as NonNullable<typeof transition>);
    await expect(linkRepository().noteSession(current)).rejects.toThrow(ConcurrentModificationError);
  });

  it('is the only kind of link whose page sets a cookie', async () => {
    const single = await createLink(stack, keys.sandbox.api_key);
    const visitor = buyer();
    expect((await visitor.visit(single.checkout_url)).status).toBe(200);
    expect(visitor.setCookie).toBeUndefined();
  });
});

describe('the expiry of a reusable link', () => {
  it('ends every buyer’s open session at the PSP before the link is recorded expired', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const link = await createLink(stack, keys.stripe.api_key, {
      reusable: true,
      expires_at: expiresAt.toISOString(),
    });
    const buyers = [buyer(), buyer()];
    for (const one of buyers) await one.visit(link.checkout_url);
    const sessions = await Promise.all(buyers.map((one) => sessionOf(link.id, one.payment)));

    const later = new Date(expiresAt.getTime() + 60_000);
    await expireDueLinks(
      {
        links: linkRepository(),
        queue: eventQueue(),
        pspSessions: pspConnections(),
        payments: paymentRepository(),
        now: () => later,
        checkoutBase: config().CHECKOUT_BASE,
      },
      500,
    );
    expect((await storedLink(link.id)).status).toBe('expired');
    expect(sessions.map((session) => stripe.sessions.get(session.id)?.status)).toEqual([
      'expired',
      'expired',
    ]);
    const payments = await Promise.all(
      sessions.map((session) => paymentRepository().get(link.id, 'test', session.paymentId)),
    );
    expect(payments.map((payment) => payment?.status)).toEqual(['canceled', 'canceled']);
  });
});
