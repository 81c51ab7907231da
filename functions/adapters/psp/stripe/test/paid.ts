import { expect } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import type { PspMerchant } from '../../../../../test/support/psp-stack.ts';
import { STRIPE_FAKE } from './fake.ts';

/** A merchant paying through Stripe's fake, as the payouts' tests set one up. */
export type StripeMerchant = PspMerchant<{ stripe: typeof STRIPE_FAKE }>;

/** A link of `value` euros paid through Stripe: the buyer completes its Checkout Session and Stripe says so. */
export async function paidThroughStripe(merchant: StripeMerchant, value: string) {
  const { psps, key, connection } = merchant;
  const link = await createLink(psps.stack, key.api_key, { amount: { value, currency: 'EUR' } });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Stripe session');
  const event = psps.stripe.signedEvent(
    'checkout.session.completed',
    psps.stripe.completeSession(session.id),
    STRIPE_FAKE.credentials.webhook_secret,
  );
  const notified = await psps.stack.request('POST', `/psp/stripe/notifications/${connection.id}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': event.signature },
  });
  expect(notified.status).toBe(200);
  return { link, paymentId: session.payment_id as string };
}

/** A refund of `value` euros of the link, which Stripe then settles. */
export async function refundedThroughStripe(merchant: StripeMerchant, linkId: string, value: string) {
  const { psps, key } = merchant;
  const refund = await psps.stack.request('POST', `/v1/payment-links/${linkId}/refunds`, {
    key: key.api_key,
    body: { amount: { value, currency: 'EUR' } },
  });
  expect(refund.status).toBe(201);
  const stored = (await storedLink(linkId)).refunds.find((each) => each.id === refund.body.id);
  psps.stripe.settleRefund(stored?.provider_reference as string, 'succeeded');
  return refund.body.id as string;
}
