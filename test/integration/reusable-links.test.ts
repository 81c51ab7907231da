import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../functions/config.ts';
import { linkRepository, paymentRepository, refundLedger } from '../../functions/dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../../functions/domain/call-budgets.ts';
import { addPayment } from '../../functions/domain/link-payments.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { paymentMoney } from '../../functions/domain/payment-money.ts';
import { requestRefund } from '../../functions/domain/refund.ts';
import { BUYER_COOKIE } from '../../functions/http/checkout/buyer-cookie.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import { openCheckout } from '../../functions/use-cases/checkout.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { NAVIGATION_HEADERS } from '../support/navigate.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';
import type { TestStack } from '../support/test-stack.ts';
import { buyer, pointers, reusableLinkPsps, sessionOf } from './reusable-links.ts';

/**
 * Reusable links (docs/api.md#reusable-links, docs/orchestration.md#reusable-links): each buyer gets their own PSP
 * session, each success is its own `payment_link.paid`, the link completes at `max_payments`, and refunds name
 * the payment and are bounded by it. Through every adapter, each PSP's SDK against a fake of its wire format.
 */
const psps = reusableLinkPsps();
const { keys, pay, api, events, payloads, refundedAtPsp } = psps;
let stack: TestStack;
beforeAll(() => {
  ({ stack } = psps.started());
});

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
