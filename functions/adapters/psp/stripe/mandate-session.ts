import type Stripe from 'stripe';
import type { PaymentMethod } from '../../../domain/payment-methods.ts';
import { type OpensMandate, PspRefusalError } from '../../../ports/psp.ts';

/**
 * A Checkout Session that opens a mandate (docs/subscriptions.md#stripe): Stripe saves the buyer's payment method on
 * a Customer of its own for later off-session charges. The first period is paid with the method saved
 * (`payment_intent_data.setup_future_usage=off_session`); a trial only sets the method up (`mode=setup`, nothing
 * charged). Without a Customer Stripe does not attach the method and it can never be charged again, so one is
 * always created (`customer_creation=always`): one Customer per subscription.
 */

/**
 * Our methods whose saved Stripe PaymentMethod (of the type named) a renewal charges as it is. iDEAL and Bancontact
 * save another one (a generated SEPA Direct Debit method), which `mandateOf` does not read: they are left out.
 */
const REUSABLE: Partial<Record<PaymentMethod, string>> = {
  card: 'card',
  sepa_debit: 'sepa_debit',
  paypal: 'paypal',
};
export const REUSABLE_METHODS: readonly string[] = Object.values(REUSABLE);

type SessionParams = Stripe.Checkout.SessionCreateParams;

/**
 * The session's parameters for a link whose payment opens a mandate: only methods Stripe can charge again (card
 * alone when the link names none, as every account has it), the subscription named in the metadata of everything
 * it creates, and the terms on Stripe's page above its button. Refused without calling Stripe when none of the
 * link's methods can be charged again.
 */
export function mandateSession(params: SessionParams, opens: OpensMandate): SessionParams {
  const allowed = params.allowed_payment_method_types ?? ['card'];
  const methods = allowed.filter((method) => REUSABLE_METHODS.includes(method));
  if (methods.length === 0) {
    const reusable = Object.keys(REUSABLE).join(', ');
    throw new PspRefusalError(
      `Stripe cannot charge any of the link's payment methods again: a subscription needs one of ${reusable}.`,
    );
  }
  const subscription = { subscription_id: opens.subscriptionId };
  const { line_items, payment_intent_data, ...common } = {
    ...params,
    customer_creation: 'always' as const,
    allowed_payment_method_types: methods,
    metadata: { ...params.metadata, ...subscription },
    custom_text: { submit: { message: stripeTerms(opens) } },
  };
  const metadata = { ...payment_intent_data?.metadata, ...subscription };
  if (opens.withoutCharge) {
    // Setup mode takes no lines; with Stripe's dynamic payment methods it needs the currency of later charges.
    return {
      ...common,
      mode: 'setup',
      currency: opens.periodAmount.currency.toLowerCase(),
      setup_intent_data: { metadata },
    };
  }
  return {
    ...common,
    ...(line_items ? { line_items } : {}),
    payment_intent_data: { ...payment_intent_data, setup_future_usage: 'off_session', metadata },
  };
}

/**
 * What the buyer agrees to, shown on Stripe's page (`custom_text.submit`; Stripe adds its own notice that the
 * method is saved). In English: the adapter has no texts of the checkout's languages, and Stripe does not
 * translate a custom text.
 */
export function stripeTerms({ recurring, periodAmount }: OpensMandate): string {
  const amount = `${periodAmount.currency} ${periodAmount.value}`;
  const saved = 'Your payment method is saved, and charged then without you.';
  if (!recurring) {
    return `${amount} now, and the same for each later period of the subscription until you cancel. ${saved}`;
  }
  const { interval, interval_count: count, trial_days: trial, cycles } = recurring;
  const every = count === 1 ? `every ${interval}` : `every ${count} ${interval}s`;
  const times = cycles ? `, ${cycles} ${cycles === 1 ? 'time' : 'times'} in all` : ' until you cancel';
  const terms = `${amount} ${every}${times}.`;
  const cancel = 'To cancel, ask the merchant for a cancel link.';
  return `${trial ? `Free for ${trial} days, then ${terms}` : terms} ${saved} ${cancel}`;
}
