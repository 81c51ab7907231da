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
 * KNOWN DEFECT (both tests `it.fails`): the refund's reservation puts the link on the refund sweeper's list and
 * so takes it off the expiry sweeper's; any later whole-item write of the open link (the refund sweeper's own
 * check, another payment, a PATCH) puts it back on the expiry list and takes it off the refund list, although
 * `refund_check_at` is still set. A refund whose notification was lost then stays pending, its amount reserved,
 * without the StuckRefunds alarm, until the link expires. The fix needs one rule for an item that both sweepers
 * need (for instance: the entry due first, the other sweeper's taking over when that one writes the link) in
 * `linkToItem` and in `RefundLedger.reserve`, outside the refunds' files.
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
  it.fails('Stripe: stays on the refund sweeper’s list after its first check, so a refund whose notification was lost is settled', async () => {
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

  it.fails('stays on the expiry sweeper’s list while its refund is pending', async () => {
    const { link } = await refundedOpenLink(1);

    const due = await linkRepository().dueForExpiry(new Date(Date.now() + 2 * 86_400_000), 1_000);

    expect(due.map(({ id }) => id)).toContain(link.id);
  });
});
