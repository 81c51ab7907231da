import { beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_IDEMPOTENCY_WINDOW_MS } from '../../functions/adapters/psp/adyen/adapter.ts';
import type { FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import type { FakeMollie } from '../../functions/adapters/psp/mollie/test/fake.ts';
import type { FakeStripe } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { refundLedger } from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { sweepPendingRefunds } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';
import { refundPsps } from './refund-psps.ts';

/**
 * Refunds the PSP refuses, at once or when asked again, and the refund sweeper that settles a refund whose
 * notification never came (docs/webhooks.md#refunds). Each PSP through its official SDK against a server speaking
 * its wire format.
 */
const stripeCredentials = STRIPE_FAKE.credentials;

const psps = refundPsps();
const { keys, notifyStripe, notifyAdyen, paidLink, requestRefund, refundsOf, eventTypes } = psps;
let stripe: FakeStripe;
let mollie: FakeMollie;
let adyen: FakeAdyen;
let stack: TestStack;
beforeAll(() => {
  ({ stack, stripe, mollie, adyen } = psps.started());
});

const sweep = sweepPendingRefunds;

describe('a refund the PSP refuses outright', () => {
  it('Stripe: a payment already refunded in its dashboard fails the refund at once, with refund.failed, and frees its amount', async () => {
    const link = await paidLink('stripe', '7.00');
    stripe.refundInDashboard((await storedLink(link.id)).payment!.reference!);

    const created = await requestRefund('stripe', link.id, '7.00');

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'failed',
      provider_reference: null,
      failure: { code: 'refund_failed', message: expect.stringMatching(/^Stripe: .*already been refunded/) },
    });
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
    const stored = await storedLink(link.id);
    expect(stored.refund_reserved_minor).toBe(0);
    expect(stored.refund_check_at).not.toBeNull(); // the sweeper takes it off its list at its next look
  });

  it('Mollie: a refund Mollie refuses (more than remains there) fails at once and frees its amount', async () => {
    const link = await paidLink('mollie', '12.00');
    const payment = mollie.payments.get((await storedLink(link.id)).payment!.reference!)!;
    payment.amountRefunded = { value: '12.00', currency: 'EUR' }; // refunded in Mollie's dashboard

    const created = await requestRefund('mollie', link.id, '12.00');

    expect(created.body).toMatchObject({ status: 'failed', failure: { code: 'refund_failed' } });
    expect(await eventTypes('mollie', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
    expect((await storedLink(link.id)).refund_reserved_minor).toBe(0);
  });

  it('the sweeper fails a refund that the PSP, asked again, refuses, instead of leaving it pending', async () => {
    const link = await paidLink('mollie', '9.00');
    // Mollie never answers the request (a hang, not a 503: Mollie's SDK retries a 503 twice, 2 s apart, and a
    // retry that outlives the call's 5 s budget could still reach Mollie after the outage and create the refund).
    mollie.outage = 'hang';
    const created = await requestRefund('mollie', link.id, '9.00');
    mollie.outage = 'none';
    expect(created.body).toMatchObject({ status: 'pending', provider_reference: null });
    const payment = mollie.payments.get((await storedLink(link.id)).payment!.reference!)!;
    payment.amountRefunded = { value: '9.00', currency: 'EUR' }; // meanwhile refunded in Mollie's dashboard

    await sweep(new Date(Date.parse(created.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000));

    expect(await refundsOf('mollie', link.id)).toMatchObject([{ id: created.body.id, status: 'failed' }]);
    expect(await eventTypes('mollie', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
  });

  it('Stripe: an amount Stripe cannot express in a three-decimal currency is a 422, before Stripe is asked', async () => {
    const link = await createLink(stack, keys.stripe.api_key, {
      amount: { value: '10.000', currency: 'KWD' },
    });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const paid = stripe.completeSession(session.id);
    await notifyStripe(
      stripe.signedEvent('checkout.session.completed', paid, stripeCredentials.webhook_secret),
    );
    const sent = stripe.requests.length;

    const refused = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: keys.stripe.api_key,
      body: { amount: { value: '1.005', currency: 'KWD' } },
    });

    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { pointer: '/amount/value', detail: expect.stringMatching(/third decimal must be 0/) },
    ]);
    expect(stripe.requests.length).toBe(sent);
    const accepted = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: keys.stripe.api_key,
      body: { amount: { value: '1.01', currency: 'KWD' } },
    });
    expect(accepted.body).toMatchObject({ status: 'pending', amount: { value: '1.01', currency: 'KWD' } });
    expect(stripe.requests.at(-1)?.form.amount).toBe('1010');
  });
});

describe('the refund sweeper', () => {
  it('settles a refund whose notification was lost, once its check is due', async () => {
    const link = await paidLink('stripe', '9.00');
    const created = await requestRefund('stripe', link.id, '9.00');
    stripe.settleRefund(created.body.provider_reference, 'succeeded'); // its event never arrives
    const requestedAt = Date.parse(created.body.created_at);

    await sweep(new Date(requestedAt + FIRST_CHECK_AFTER_MS - 60_000));
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ status: 'pending' }]);

    await sweep(new Date(requestedAt + FIRST_CHECK_AFTER_MS + 1_000));
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);
    // Nothing pending: the link has left the sweeper's list.
    expect((await storedLink(link.id)).refund_check_at).toBeNull();
    const due = await refundLedger().dueForCheck(new Date(requestedAt + 30 * 86_400_000), 1_000);
    expect(due.map(({ id }) => id)).not.toContain(link.id);
  });

  it('asks again later each time while the PSP says pending', async () => {
    const link = await paidLink('stripe', '4.00');
    const created = await requestRefund('stripe', link.id, '4.00');
    const firstCheck = Date.parse(created.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000;

    await sweep(new Date(firstCheck));
    const once = await storedLink(link.id);
    await sweep(new Date(Date.parse(once.refund_check_at as string) + 1_000));
    const twice = await storedLink(link.id);

    expect(once.refund_checks).toBe(1);
    expect(twice.refund_checks).toBe(2);
    const firstWait = Date.parse(once.refund_check_at as string) - firstCheck;
    const secondWait =
      Date.parse(twice.refund_check_at as string) - (Date.parse(once.refund_check_at as string) + 1_000);
    expect(secondWait).toBeGreaterThan(firstWait);
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ status: 'pending' }]);
  });

  it('asks a PSP that could not be reached again with the same idempotency key, then its notification settles it', async () => {
    const link = await paidLink('adyen', '15.00');
    adyen.outage = 'error';
    const created = await requestRefund('adyen', link.id, '15.00');
    adyen.outage = 'none';
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', provider_reference: null });
    const atAdyen = () =>
      [...adyen.refunds.values()].filter(({ reference }) => reference.endsWith(created.body.id));
    expect(atAdyen()).toEqual([]);

    await sweep(new Date(Date.parse(created.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000));

    const asked = adyen.requests.filter((request) => request.path.endsWith('/refunds')).at(-1);
    expect(asked?.headers['idempotency-key']).toBe(created.body.id);
    const [pending] = await refundsOf('adyen', link.id);
    expect(pending).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^[0-9A-F]{16}$/),
    });
    expect(atAdyen()).toHaveLength(1);
    await notifyAdyen(adyen.refundItem(pending.provider_reference, 'succeeded'));
    expect(await refundsOf('adyen', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
  });

  it('does not ask again once the PSP’s idempotency window is over: the refund stays pending', async () => {
    const link = await paidLink('adyen', '3.00');
    adyen.outage = 'error';
    const created = await requestRefund('adyen', link.id, '3.00');
    adyen.outage = 'none';
    const refundRequests = () => adyen.requests.filter((request) => request.path.endsWith('/refunds')).length;
    const before = refundRequests();

    await sweep(new Date(Date.parse(created.body.created_at) + ADYEN_IDEMPOTENCY_WINDOW_MS + 60_000));

    expect(refundRequests()).toBe(before);
    expect(await refundsOf('adyen', link.id)).toMatchObject([
      { status: 'pending', provider_reference: null },
    ]);
  });
});
