import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { type FakeMollie, MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { type FakeStripe, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { config } from '../../functions/config.ts';
import {
  eventQueue,
  linkRepository,
  paymentRepository,
  pspConnections,
  refundLedger,
} from '../../functions/dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../../functions/domain/call-budgets.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { ConcurrentModificationError } from '../../functions/domain/errors.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import { addPayment } from '../../functions/domain/link-payments.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { paymentMoney } from '../../functions/domain/payment-money.ts';
import { requestRefund } from '../../functions/domain/refund.ts';
import { BUYER_COOKIE } from '../../functions/http/buyer-cookie.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { openCheckout } from '../../functions/use-cases/checkout.ts';
import { expireDueLinks } from '../../functions/use-cases/payment-links.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

/**
 * Reusable links (docs/api.md#reusable-links, docs/orchestration.md#reusable-links): each buyer gets their own PSP
 * session, each success is its own `payment_link.paid`, the link completes at `max_payments`, and refunds name
 * the payment and are bounded by it. Through every adapter, each PSP's SDK against a fake of its wire format.
 */
type Provider = 'sandbox' | 'stripe' | 'mollie' | 'adyen';

const stripeCredentials = STRIPE_FAKE.credentials;
const adyenCredentials = ADYEN_FAKE.credentials;

let psps: PspStack<typeof FAKES>;
let stripe: FakeStripe;
let mollie: FakeMollie;
let adyen: FakeAdyen;
let stack: TestStack;
const keys = {} as Record<Provider, IssuedApiKey>;
const connections = {} as Record<Exclude<Provider, 'sandbox'>, PspConnection>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, stripe, mollie, adyen } = psps);
  for (const provider of ['sandbox', 'stripe', 'mollie', 'adyen'] as const) {
    keys[provider] = await stack.issueKey(`${provider}reusable`, 'test');
  }
  for (const provider of ['stripe', 'mollie', 'adyen'] as const) {
    connections[provider] = await psps.connect(`${provider}reusable`, provider);
  }
});
afterAll(() => psps?.stop());

/** A buyer's browser on the checkout page: it keeps the cookie the page sets, as a browser does. */
function buyer() {
  let cookie: string | undefined;
  let last: string | undefined;
  return {
    get payment() {
      return cookie?.split('=')[1];
    },
    /** The last `Set-Cookie` the page sent. */
    get setCookie() {
      return last;
    },
    async visit(url: string) {
      const page = await httpRequest(url, {
        headers: { ...NAVIGATION_HEADERS, ...(cookie ? { cookie } : {}) },
      });
      const set = ([] as string[]).concat(page.headers['set-cookie'] ?? [])[0];
      if (set) {
        last = set;
        cookie = set.split(';')[0];
      }
      return page;
    },
  };
}

/** The buyer's own session, as recorded with their payment. */
async function sessionOf(linkId: string, paymentId: string | undefined) {
  const payment = await paymentRepository().get(linkId, 'test', paymentId ?? '');
  if (!payment?.session_id) throw new Error(`no session for ${paymentId}`);
  return { id: payment.session_id, url: payment.session_url, paymentId: payment.id };
}

/** The buyer pays on their session at the PSP, and the PSP's notification reaches us. */
async function pay(provider: Provider, sessionId: string) {
  const notify = (rawBody: string, headers: Record<string, string>) =>
    stack.request('POST', `/psp/${provider}/notifications/${connections[provider as 'stripe'].id}`, {
      rawBody,
      headers,
    });
  if (provider === 'sandbox') {
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${sessionId}/pay`, { method: 'POST' });
    return;
  }
  if (provider === 'stripe') {
    const paid = stripe.completeSession(sessionId);
    const event = stripe.signedEvent('checkout.session.completed', paid, stripeCredentials.webhook_secret);
    await notify(event.body, { 'content-type': 'application/json', 'stripe-signature': event.signature });
  } else if (provider === 'mollie') {
    mollie.setStatus(sessionId, 'paid');
    await notify(mollie.webhookBody(sessionId), { 'content-type': 'application/x-www-form-urlencoded' });
  } else {
    await notify(adyen.notification([adyen.pay(sessionId)], { hmacKey: adyenCredentials.hmac_key }), {
      'content-type': 'application/json',
    });
  }
}

const api = (provider: Provider, method: string, path: string, body?: unknown) =>
  stack.request(method, path, { key: keys[provider].api_key, body });

const events = async (provider: Provider, linkId: string) =>
  (await api(provider, 'GET', `/v1/payment-links/${linkId}/events`)).body.data as {
    type: string;
    id: string;
  }[];

/** Each event's payload as the webhook carries it. */
async function payloads(provider: Provider, linkId: string) {
  const ids = (await events(provider, linkId)).map((event) => event.id);
  // biome-ignore lint/suspicious/noExplicitAny: the webhook's JSON body, asserted on below
  const read: any[] = [];
  for (const id of ids) read.push((await api(provider, 'GET', `/v1/events/${id}`)).body);
  return read;
}

/** Whether the PSP holds a refund of the payment with this PSP reference. */
function refundedAtPsp(provider: Provider, reference: string): boolean {
  if (provider === 'stripe') return [...stripe.refunds.values()].some((r) => r.payment_intent === reference);
  if (provider === 'mollie') return [...mollie.refunds.values()].some((r) => r.paymentId === reference);
  if (provider === 'adyen')
    return [...adyen.refunds.values()].some((r) => r.paymentPspReference === reference);
  return true; // the sandbox refunds at once and keeps nothing to look at
}

const pointers = (body: { errors?: { pointer: string }[] }) => body.errors?.map((error) => error.pointer);

describe.each(['sandbox', 'stripe', 'mollie', 'adyen'] as const)('a reusable link at %s', (provider) => {
  it('gives each buyer their own session, takes both payments as two paid events, then completes', async () => {
    const link = await createLink(stack, keys[provider].api_key, {
      amount: { value: '12.00', currency: 'EUR' },
      reusable: true,
      max_payments: 2,
    });
    expect(link).toMatchObject({ reusable: true, max_payments: 2, succeeded_payments: 0, status: 'open' });

    const first = buyer();
    const second = buyer();
    expect((await first.visit(link.checkout_url)).status).toBe(200);
    const firstSession = await sessionOf(link.id, first.payment);
    const attributes = first.setCookie?.split('; ') ?? [];
    expect(attributes[0]).toBe(`${BUYER_COOKIE}=${firstSession.paymentId}`);
    expect(attributes).toEqual(
      expect.arrayContaining([`Path=${new URL(link.checkout_url).pathname}`, 'HttpOnly', 'SameSite=Lax']),
    );
    // The first buyer's session stays open and unpaid: it does not stand in the second buyer's way.
    expect((await second.visit(link.checkout_url)).status).toBe(200);
    const secondSession = await sessionOf(link.id, second.payment);
    expect(secondSession.id).not.toBe(firstSession.id);
    // Each buyer coming back gets their own session again, not a new one and not the other's.
    expect((await first.visit(link.checkout_url)).text).toContain(firstSession.url);
    expect((await second.visit(link.checkout_url)).text).toContain(secondSession.url);
    expect((await paymentRepository().get(link.id, 'test', firstSession.paymentId))?.status).toBe('pending');

    await pay(provider, secondSession.id);
    await eventually(async () => (await storedLink(link.id)).paid_payments?.[secondSession.paymentId]);
    expect((await api(provider, 'GET', `/v1/payment-links/${link.id}`)).body).toMatchObject({
      status: 'open',
      succeeded_payments: 1,
    });
    await pay(provider, firstSession.id);
    await eventually(async () => (await storedLink(link.id)).status === 'completed');

    const read = (await api(provider, 'GET', `/v1/payment-links/${link.id}`)).body;
    expect(read).toMatchObject({ status: 'completed', succeeded_payments: 2 });
    const paid = (await payloads(provider, link.id)).filter((event) => event.type === 'payment_link.paid');
    expect(paid.map((event) => event.data.payment.id).sort()).toEqual(
      [firstSession.paymentId, secondSession.paymentId].sort(),
    );
    expect(paid.map((event) => event.data.status).sort()).toEqual(['completed', 'open']);
    const payments = (await api(provider, 'GET', `/v1/payment-links/${link.id}/payments`)).body.data;
    expect(
      payments
        .filter((payment: { status: string }) => payment.status === 'succeeded')
        .map((p: { id: string }) => p.id),
    ).toEqual(expect.arrayContaining([firstSession.paymentId, secondSession.paymentId]));
    // Completed: the page takes no more buyers.
    expect((await buyer().visit(link.checkout_url)).status).toBe(410);

    // Refunds name the payment, go to the PSP for that payment, and are bounded by it.
    const refunds = `/v1/payment-links/${link.id}/refunds`;
    const unnamed = await api(provider, 'POST', refunds, {});
    expect(unnamed.status).toBe(422);
    expect(pointers(unnamed.body)).toEqual(['/payment_id']);
    const whole = await api(provider, 'POST', refunds, { payment_id: firstSession.paymentId });
    expect(whole.status).toBe(201);
    expect(whole.body).toMatchObject({ payment_id: firstSession.paymentId, amount: { value: '12.00' } });
    expect(whole.body.status).not.toBe('failed');
    const over = await api(provider, 'POST', refunds, {
      payment_id: firstSession.paymentId,
      amount: { value: '0.01', currency: 'EUR' },
    });
    expect(over.status).toBe(422);
    const part = await api(provider, 'POST', refunds, {
      payment_id: secondSession.paymentId,
      amount: { value: '5.00', currency: 'EUR' },
    });
    expect(part.status).toBe(201);
    expect(part.body.status).not.toBe('failed');
    const references = await Promise.all(
      [firstSession, secondSession].map(
        async (session) =>
          (await paymentRepository().get(link.id, 'test', session.paymentId))?.provider_reference as string,
      ),
    );
    for (const reference of references) expect(refundedAtPsp(provider, reference)).toBe(true);
  });
});

describe('a reusable link on the sandbox', () => {
  it('records a payment beyond max_payments, reports it as a duplicate payment, and lets it be refunded', async () => {
    const link = await createLink(stack, keys.sandbox.api_key, { reusable: true, max_payments: 1 });
    const first = buyer();
    await first.visit(link.checkout_url);
    // Only a session the link's places know nothing of can still race another: one opened before places existed
    // (the link is stored again as it was then), while a second buyer's visit read the link's payments before the
    // first's was written. Both get a session (buyers who open at once share out the places:
    // test/integration/checkout-limits.test.ts).
    const opened = await storedLink(link.id);
    expect(Object.keys(opened.places)).toHaveLength(1);
    await linkRepository().update(opened, { ...opened, places: {}, version: opened.version + 1 });
    const stale = Object.create(paymentRepository(), {
      listOfLink: { value: async () => [] },
      listOfLinkSince: { value: async () => [] },
    });
    const raced = await openCheckout(
      {
        links: linkRepository(),
        payments: stale,
        psps: pspConnections(),
        now: () => new Date(),
        checkoutBase: config().CHECKOUT_BASE,
        baseUrl: config().BASE_URL,
        random: Math.random,
        timeLeftMs: () => 20_000,
        maxPspCalls: CHECKOUT_PSP_CALLS,
      },
      { id: link.id, method: 'GET', headers: NAVIGATION_HEADERS, sourceAddress: '192.0.2.2' },
    );
    if (raced.kind !== 'forward') throw new Error(`no session for the second buyer: ${raced.kind}`);
    const [a, b] = [await sessionOf(link.id, first.payment), raced.session];
    // Both buyers pay at the same moment.
    await Promise.all([pay('sandbox', a.id), pay('sandbox', b.id)]);
    await eventually(async () => Object.keys((await storedLink(link.id)).paid_payments ?? {}).length === 2);

    const read = (await api('sandbox', 'GET', `/v1/payment-links/${link.id}`)).body;
    expect(read).toMatchObject({ status: 'completed', succeeded_payments: 2 });
    const types = (await events('sandbox', link.id)).map((event) => event.type).sort();
    expect(types).toEqual(['payment_link.duplicate_payment', 'payment_link.paid']);
    const duplicate = (await payloads('sandbox', link.id)).find(
      (event) => event.type === 'payment_link.duplicate_payment',
    );
    const refund = await api('sandbox', 'POST', `/v1/payment-links/${link.id}/refunds`, {
      payment_id: duplicate.data.payment.id,
    });
    expect(refund.status).toBe(201);
    expect(refund.body.status).toBe('succeeded');
  });

  it('never lets concurrent refunds of one payment add up past it, while the other payment stays whole', async () => {
    const link = await createLink(stack, keys.sandbox.api_key, {
      amount: { value: '10.00', currency: 'EUR' },
      reusable: true,
    });
    const buyers = [buyer(), buyer()];
    for (const one of buyers) {
      await one.visit(link.checkout_url);
      await pay('sandbox', (await sessionOf(link.id, one.payment)).id);
    }
    await eventually(async () => Object.keys((await storedLink(link.id)).paid_payments ?? {}).length === 2);
    const [target, other] = buyers.map((one) => one.payment as string);

    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api('sandbox', 'POST', `/v1/payment-links/${link.id}/refunds`, {
          payment_id: target,
          amount: { value: '4.00', currency: 'EUR' },
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    expect(answers.every((answer) => answer.status === 201 || answer.status === 422)).toBe(true);
    const stored = await storedLink(link.id);
    expect(stored.paid_payments?.[target as string]?.refund_reserved_minor).toBe(800);
    expect(stored.paid_payments?.[other as string]?.refund_reserved_minor).toBe(0);
    const rest = await api('sandbox', 'POST', `/v1/payment-links/${link.id}/refunds`, { payment_id: other });
    expect(rest.body).toMatchObject({ amount: { value: '10.00' }, status: 'succeeded' });
    expect((await api('sandbox', 'GET', `/v1/payment-links/${link.id}`)).body.amount_refunded.value).toBe(
      '18.00',
    );
  });

  it('refuses max_payments without reusable, out of bounds, and changes to either, with pointers', async () => {
    const create = (body: unknown) => api('sandbox', 'POST', '/v1/payment-links', body);
    const amount = { value: '1.00', currency: 'EUR' };
    const alone = await create({ amount, max_payments: 2 });
    expect([alone.status, pointers(alone.body)]).toEqual([422, ['/max_payments']]);
    const zero = await create({ amount, reusable: true, max_payments: 0 });
    expect([zero.status, pointers(zero.body)]).toEqual([422, ['/max_payments']]);
    const huge = await create({ amount, reusable: true, max_payments: 1_000_000 });
    expect([huge.status, pointers(huge.body)]).toEqual([422, ['/max_payments']]);
    const notBoolean = await create({ amount, reusable: 'yes' });
    expect([notBoolean.status, pointers(notBoolean.body)]).toEqual([422, ['/reusable']]);
    const link = (await create({ amount, reusable: true })).body;
    expect(link).toMatchObject({ reusable: true, max_payments: null });
    const patch = await api('sandbox', 'PATCH', `/v1/payment-links/${link.id}`, { max_payments: 3 });
    expect([patch.status, pointers(patch.body)]).toEqual([422, ['/max_payments']]);
  });
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

describe('pending refunds of a reusable link', () => {
  it('are counted against the connection that took the refunded payment, not the link’s latest', async () => {
    const now = new Date();
    let link = newPaymentLink(
      { account: 'pendingreusable', mode: 'test' },
      { amount: { value: '9.00', currency: 'EUR' }, reusable: true },
      now,
    );
    for (const [id, connection] of [
      ['pay_PendingRefundA000000000', 'pc_PendingRefundA0000000000'],
      ['pay_PendingRefundB000000000', 'pc_PendingRefundB0000000000'],
    ] as const) {
      const payment = {
        id,
        connection_id: connection,
        provider: 'stripe' as const,
        reference: `pi_${id}`,
        amount: link.amount!,
      };
      const resource = {
        ...payment,
        object: 'payment' as const,
        status: 'succeeded' as const,
        amount: link.amount!,
        provider_reference: payment.reference,
        failure: null,
        ...paymentMoney(link.amount!, 0, undefined),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      link = (addPayment(link, payment, resource, now) as { after: PaymentLink }).after;
    }
    await linkRepository().create(link);
    // A's payment is refunded; the link's `payment` is B's, its latest.
    expect(link.payment?.connection_id).toBe('pc_PendingRefundB0000000000');
    const refund = requestRefund(
      link,
      undefined,
      're_PendingRefundA0000000000',
      now,
      anyRefunds,
      'pay_PendingRefundA000000000',
    );
    const reserved = await refundLedger().reserve(link, refund, {
      paidMinor: 900n,
      refundMinor: 900n,
      maxRefunds: 100,
      checkAt: now.toISOString(),
    });
    expect(reserved).toBe(true);

    expect(await refundLedger().pendingOfConnection('pc_PendingRefundA0000000000')).toContainEqual({
      link_id: link.id,
      id: refund.id,
    });
    expect(await refundLedger().pendingOfConnection('pc_PendingRefundB0000000000')).not.toContainEqual({
      link_id: link.id,
      id: refund.id,
    });
    // Reserving more than remains of that payment fails the write, whatever the link's other payment holds.
    const again = {
      ...refund,
      id: 're_PendingRefundA0000000001',
      amount: { value: '0.01', currency: 'EUR' },
    };
    const stored = await storedLink(link.id);
    expect(
      await refundLedger().reserve(stored, again, {
        paidMinor: 900n,
        refundMinor: 1n,
        maxRefunds: 100,
        checkAt: now.toISOString(),
      }),
    ).toBe(false);
  });
});
