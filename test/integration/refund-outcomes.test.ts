import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import type { FakeMollie } from '../../functions/adapters/psp/mollie/test/fake.ts';
import type { FakeStripe } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { sweepPendingRefunds } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';
import { refundPsps } from './refund-psps.ts';

/**
 * Refunds whose outcome the PSP decides after answering the request (docs/webhooks.md#refunds): the PSP's
 * notification settles them, or reverses one that succeeded; notifications about what we did not create change
 * nothing. The refund sweeper and the refunds a PSP refuses: test/integration/refund-sweeps.test.ts. Each PSP
 * through its official SDK against a server speaking its wire format.
 */
const stripeCredentials = STRIPE_FAKE.credentials;

const psps = refundPsps();
const { keys, notifyStripe, notifyMollie, notifyAdyen, paidLink, requestRefund, refundsOf, eventTypes } =
  psps;
let stripe: FakeStripe;
let mollie: FakeMollie;
let adyen: FakeAdyen;
let stack: TestStack;
beforeAll(() => {
  ({ stack, stripe, mollie, adyen } = psps.started());
});

const _sweep = sweepPendingRefunds;

describe('a refund the PSP settles later, told by its notification', () => {
  it('Stripe: refund.updated settles it with refund.succeeded, and amount_refunded follows', async () => {
    const link = await paidLink('stripe');
    const created = await requestRefund('stripe', link.id, '5.00');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^re_/),
    });

    const settled = stripe.settleRefund(created.body.provider_reference, 'succeeded');
    const response = await notifyStripe(
      stripe.signedEvent('refund.updated', settled, stripeCredentials.webhook_secret),
    );

    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('refunded');
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.stripe.api_key });
    expect(read.body.amount_refunded).toEqual({ value: '5.00', currency: 'EUR' });
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);

    // Stripe sends its events more than once: the copy records nothing new.
    const again = await notifyStripe(
      stripe.signedEvent('refund.updated', settled, stripeCredentials.webhook_secret),
    );
    expect(again.status).toBe(200);
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);
  });

  it('Stripe: a failed refund frees its amount, so it can be refunded again', async () => {
    const link = await paidLink('stripe', '8.00');
    const created = await requestRefund('stripe', link.id, '8.00');
    const failed = stripe.settleRefund(created.body.provider_reference, 'failed');

    const response = await notifyStripe(
      stripe.signedEvent('refund.failed', failed, stripeCredentials.webhook_secret),
    );

    expect(response.body.outcome).toBe('refund_failed');
    expect(await refundsOf('stripe', link.id)).toMatchObject([
      { id: created.body.id, status: 'failed', failure: { code: 'refund_failed' } },
    ]);
    expect(await eventTypes('stripe', link.id)).toEqual(['payment_link.paid', 'refund.failed']);
    expect((await requestRefund('stripe', link.id, '8.00')).status).toBe(201);
  });

  it('Stripe: a refund made in its dashboard, or naming another tenant’s link, is ignored (200) and changes nothing', async () => {
    const link = await paidLink('stripe', '6.00');
    const created = await requestRefund('stripe', link.id, '1.00');
    const ours = stripe.refunds.get(created.body.provider_reference)!;

    const fromDashboard = { ...ours, id: `re_${'d'.repeat(24)}`, metadata: {} };
    stripe.refunds.set(fromDashboard.id, fromDashboard);
    const ignored = await notifyStripe(
      stripe.signedEvent('refund.updated', fromDashboard, stripeCredentials.webhook_secret),
    );
    expect(ignored.status).toBe(200);
    expect(ignored.body.outcome).toBe('ignored');

    const otherLink = await createLink(stack, keys.other.api_key);
    const foreign = {
      ...ours,
      id: `re_${'f'.repeat(24)}`,
      status: 'succeeded',
      metadata: { link_id: otherLink.id, refund_id: created.body.id },
    };
    stripe.refunds.set(foreign.id, foreign);
    const refused = await notifyStripe(
      stripe.signedEvent('refund.updated', foreign, stripeCredentials.webhook_secret),
    );
    expect(
      (await stack.request('GET', `/v1/payment-links/${otherLink.id}/refunds`, { key: keys.other.api_key }))
        .body.data,
    ).toEqual([]);
    expect(refused.status).toBe(200);
    expect(refused.body.outcome).toBe('ignored');
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ id: created.body.id, status: 'pending' }]);
  });

  it('Mollie: the payment’s webhook, which Mollie calls when a refund changes, settles the refund', async () => {
    const link = await paidLink('mollie');
    const created = await requestRefund('mollie', link.id, '20.00');
    expect(created.body).toMatchObject({
      status: 'pending',
      provider_reference: expect.stringMatching(/^tr_/),
    });
    const [paymentId, mollieRefundId] = created.body.provider_reference.split('/');

    mollie.setRefundStatus(mollieRefundId, 'refunded');
    const response = await notifyMollie(paymentId);

    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('refunded');
    expect(await refundsOf('mollie', link.id)).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    expect(await eventTypes('mollie', link.id)).toEqual(['payment_link.paid', 'refund.succeeded']);
  });

  it('Adyen: the REFUND notification settles it, a REFUND_FAILED fails it', async () => {
    const link = await paidLink('adyen');
    const first = await requestRefund('adyen', link.id, '5.00');
    const second = await requestRefund('adyen', link.id, '7.00');
    expect([first.body.status, second.body.status]).toEqual(['pending', 'pending']);

    const succeeded = await notifyAdyen(adyen.refundItem(first.body.provider_reference, 'succeeded'));
    const failed = await notifyAdyen(adyen.refundItem(second.body.provider_reference, 'failed'));

    expect([succeeded.status, failed.status]).toEqual([200, 200]);
    expect(await refundsOf('adyen', link.id)).toMatchObject([
      { id: second.body.id, status: 'failed' },
      { id: first.body.id, status: 'succeeded' },
    ]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.adyen.api_key });
    expect(read.body.amount_refunded).toEqual({ value: '5.00', currency: 'EUR' });
    expect(await eventTypes('adyen', link.id)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
      'refund.failed',
    ]);
  });
});

describe('a refund the PSP reverses after it succeeded', () => {
  it('Stripe: refund.failed after refund.updated (succeeded) fails it again, restores amount_refunded, sends refund.failed', async () => {
    const link = await paidLink('stripe', '10.00');
    const created = await requestRefund('stripe', link.id, '10.00');
    const succeeded = stripe.settleRefund(created.body.provider_reference, 'succeeded');
    await notifyStripe(stripe.signedEvent('refund.updated', succeeded, stripeCredentials.webhook_secret));
    expect(await refundsOf('stripe', link.id)).toMatchObject([{ status: 'succeeded' }]);

    const reversed = stripe.settleRefund(created.body.provider_reference, 'failed');
    const response = await notifyStripe(
      stripe.signedEvent('refund.failed', reversed, stripeCredentials.webhook_secret),
    );

    expect(response.body.outcome).toBe('refund_failed');
    expect(await refundsOf('stripe', link.id)).toMatchObject([
      { id: created.body.id, status: 'failed', failure: { code: 'refund_failed' } },
    ]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.stripe.api_key });
    expect(read.body.amount_refunded).toEqual({ value: '0.00', currency: 'EUR' });
    expect(await eventTypes('stripe', link.id)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
      'refund.failed',
    ]);
    // A copy of the event changes nothing; the amount may be refunded again.
    await notifyStripe(stripe.signedEvent('refund.failed', reversed, stripeCredentials.webhook_secret));
    expect(await eventTypes('stripe', link.id)).toHaveLength(3);
    expect((await requestRefund('stripe', link.id, '10.00')).status).toBe(201);
  });

  it('Adyen: REFUND_FAILED or REFUNDED_REVERSED after REFUND fails the refund again and restores the totals', async () => {
    const link = await paidLink('adyen', '10.00');
    const first = await requestRefund('adyen', link.id, '4.00');
    const second = await requestRefund('adyen', link.id, '6.00');
    await notifyAdyen(adyen.refundItem(first.body.provider_reference, 'succeeded'));
    await notifyAdyen(adyen.refundItem(second.body.provider_reference, 'succeeded'));

    await notifyAdyen(adyen.refundItem(first.body.provider_reference, 'failed'));
    await notifyAdyen(adyen.refundItem(second.body.provider_reference, 'reversed'));

    expect(await refundsOf('adyen', link.id)).toMatchObject([
      { id: second.body.id, status: 'failed', failure: { message: expect.stringMatching(/reversed/) } },
      { id: first.body.id, status: 'failed' },
    ]);
    const stored = await storedLink(link.id);
    expect([stored.refund_refunded_minor, stored.refund_reserved_minor]).toEqual([0, 0]);
    expect(await eventTypes('adyen', link.id)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
      'refund.succeeded',
      'refund.failed',
      'refund.failed',
    ]);
  });
});

describe('verified notifications about what we did not create', () => {
  it('Stripe: a completed session made outside our checkout is answered 200 and ignored, so Stripe stops sending it', async () => {
    const otherTenant = await createLink(stack, keys.other.api_key);
    const created = Math.floor(Date.now() / 1000);
    const outside = (id: string, clientReferenceId: string | null) => {
      const session = {
        id,
        object: 'checkout.session',
        client_reference_id: clientReferenceId,
        created,
        expires_at: created + 3600,
        livemode: false,
        metadata: {},
        mode: 'payment',
        payment_intent: `pi_${id.slice(-12)}`,
        payment_status: 'paid',
        status: 'complete',
        url: null,
      };
      stripe.sessions.set(id, session);
      return session;
    };

    const answers = await Promise.all([
      notifyStripe(
        stripe.signedEvent(
          'checkout.session.completed',
          outside(`cs_test_${'a'.repeat(24)}`, null),
          stripeCredentials.webhook_secret,
        ),
      ),
      notifyStripe(
        stripe.signedEvent(
          'checkout.session.completed',
          outside(`cs_test_${'b'.repeat(24)}`, otherTenant.id),
          stripeCredentials.webhook_secret,
        ),
      ),
    ]);

    expect(answers.map(({ status, body }) => [status, body.outcome])).toEqual([
      [200, 'ignored'],
      [200, 'ignored'],
    ]);
    expect((await storedLink(otherTenant.id)).status).toBe('open');
  });
});
