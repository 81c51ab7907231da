import { beforeAll, describe, expect, it } from 'vitest';
import { linkRepository, refundLedger } from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { sweepPendingRefunds } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';
import { buyer, reusableLinkPsps, sessionOf } from './reusable-links.ts';

/**
 * A reusable link stays open, with its expiry, while its payments are refunded: it then needs both sweepers at
 * once, the expiry sweeper's and the refund sweeper's (docs/webhooks.md#refunds), though an item is on one
 * sweeper's list only (gsi3, `linkToItem` in functions/adapters/dynamodb/link-mapper.ts).
 *
 * It is on the list of the sweeper due on it first, and on the other's once that sweeper has written it
 * (`linkSweeperKeys`, functions/adapters/dynamodb/link-mapper.ts): before, a refund's reservation took it off the
 * expiry sweeper's list, and any later whole-item write put it back there and off the refund sweeper's, although a
 * refund was still pending, so a refund whose notification was lost stayed pending, its amount reserved, until the
 * link expired.
 */
const psps = reusableLinkPsps();
const { keys, pay, api } = psps;
let stack: TestStack;
beforeAll(() => {
  ({ stack } = psps.started());
});

/** An open reusable link expiring in `days`, paid once at Stripe, and a pending refund of part of it. */
async function refundedOpenLink(days: number) {
  const link = await createLink(stack, keys.stripe.api_key, {
    amount: { value: '12.00', currency: 'EUR' },
    reusable: true,
    expires_at: new Date(Date.now() + days * 86_400_000).toISOString(),
  });
  const paying = buyer();
  await paying.visit(link.checkout_url);
  const session = await sessionOf(link.id, paying.payment);
  await pay('stripe', session.id);
  await eventually(async () => (await storedLink(link.id)).paid_payments?.[session.paymentId]);
  const created = await api('stripe', 'POST', `/v1/payment-links/${link.id}/refunds`, {
    payment_id: session.paymentId,
    amount: { value: '5.00', currency: 'EUR' },
  });
  expect(created.body).toMatchObject({
    status: 'pending',
    provider_reference: expect.stringMatching(/^re_/),
  });
  return { link, refund: created.body };
}

describe('an open reusable link with an expiry and a pending refund', () => {
  it('Stripe: stays on the refund sweeper’s list after its first check, so a refund whose notification was lost is settled', async () => {
    const { link, refund } = await refundedOpenLink(30);
    const firstCheck = new Date(Date.parse(refund.created_at) + FIRST_CHECK_AFTER_MS + 1_000);

    await sweepPendingRefunds(firstCheck); // Stripe still says pending: the link is checked again later
    const nextCheck = new Date(Date.parse((await storedLink(link.id)).refund_check_at as string) + 1_000);
    psps.started().stripe.settleRefund(refund.provider_reference, 'succeeded'); // its event never arrives

    const due = await refundLedger().dueForCheck(nextCheck, 1_000);
    expect(due.map(({ id }) => id)).toContain(link.id);
    await sweepPendingRefunds(nextCheck);
    expect((await storedLink(link.id)).refunds).toMatchObject([{ id: refund.id, status: 'succeeded' }]);
  });

  it('stays on the expiry sweeper’s list when its expiry comes before its refund check', async () => {
    // Expiring in about 3 minutes, its refund first checked 10 minutes on (FIRST_CHECK_AFTER_MS).
    const { link } = await refundedOpenLink(3 / (24 * 60));
    const afterExpiry = new Date(Date.parse(link.expires_at) + 1_000);

    expect((await linkRepository().dueForExpiry(afterExpiry, 1_000)).map(({ id }) => id)).toContain(link.id);
  });

  it('is on the expiry sweeper’s list again once its refund check, due first, has settled the refund', async () => {
    const { link, refund } = await refundedOpenLink(1);
    const firstCheck = new Date(Date.parse(refund.created_at) + FIRST_CHECK_AFTER_MS + 1_000);
    const afterExpiry = new Date(Date.now() + 2 * 86_400_000);
    // Its refund check is due before its expiry: it is on that list, and only there.
    expect((await refundLedger().dueForCheck(firstCheck, 1_000)).map(({ id }) => id)).toContain(link.id);
    expect((await linkRepository().dueForExpiry(afterExpiry, 1_000)).map(({ id }) => id)).not.toContain(
      link.id,
    );

    psps.started().stripe.settleRefund(refund.provider_reference, 'succeeded'); // its event never arrives
    await sweepPendingRefunds(firstCheck);

    expect((await storedLink(link.id)).refunds).toMatchObject([{ id: refund.id, status: 'succeeded' }]);
    expect((await linkRepository().dueForExpiry(afterExpiry, 1_000)).map(({ id }) => id)).toContain(link.id);
  });
});
