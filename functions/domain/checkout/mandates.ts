import type { PspConnection } from '../connection.ts';
import { chargedNow, holdsMandates, type OpensMandate, opensMandate } from '../mandates.ts';
import type { Amount } from '../money.ts';
import type { PaymentLink } from '../payment-link.ts';
import { subscriptionIdOf } from '../subscription.ts';

/**
 * What the checkout's plan settles for a link whose payment opens a mandate (docs/subscriptions.md#starting): a
 * subscription link, or a subscription's update link. Only connections whose PSP holds mandates are routed it (a
 * mandate lives at one PSP, and a PSP that cannot keep one would take a one-off payment); its session asks the
 * buyer to agree to later charges; a trial's session charges nothing.
 */

/**
 * The mandate a session is to open, as the plan settles it: the subscription's terms and the period's amount.
 * `subscriptionId` names an update link's subscription; a subscription link's is undefined here, as its new
 * subscription is named after the attempt's payment (`subscriptionIdOf`), made when the attempt is.
 */
export interface PlannedMandate extends Omit<OpensMandate, 'subscriptionId'> {
  subscriptionId: string | undefined;
}

/** The connections the link may be routed to: for a link that opens a mandate, those that can hold one. */
export function connectionsFor<T extends { connection: PspConnection }>(
  link: Pick<PaymentLink, 'recurring' | 'subscription_update'>,
  connections: readonly T[],
): readonly T[] {
  if (!opensMandate(link)) return connections;
  return connections.filter(({ connection }) => holdsMandates(connection.provider));
}

/**
 * What a new session charges and the mandate it opens: on a subscription link with a trial, nothing now (the
 * session only sets the mandate up, `chargedNow`); the amount at stake on every other link.
 */
export function sessionTerms(
  link: Pick<PaymentLink, 'amount' | 'recurring' | 'subscription_update'>,
  atStake: Amount,
): { amount: Amount; mandate?: PlannedMandate } {
  const amount = chargedNow(link, atStake);
  const mandate = plannedMandate(link);
  return mandate ? { amount, mandate } : { amount };
}

function plannedMandate(
  link: Pick<PaymentLink, 'amount' | 'recurring' | 'subscription_update'>,
): PlannedMandate | undefined {
  // A subscription link and an update link always have a fixed amount (docs/subscriptions.md#the-link).
  const periodAmount = link.amount;
  if (!periodAmount || !opensMandate(link)) return undefined;
  if (link.recurring) {
    const withoutCharge = (link.recurring.trial_days ?? 0) > 0;
    return { subscriptionId: undefined, withoutCharge, periodAmount, recurring: link.recurring };
  }
  const subscriptionId = link.subscription_update?.subscription_id;
  return { subscriptionId, withoutCharge: false, periodAmount, recurring: null };
}

/** The mandate one attempt asks its PSP for: a subscription link's new subscription is named after its payment. */
export const mandateOfAttempt = (planned: PlannedMandate, paymentId: string): OpensMandate => ({
  ...planned,
  subscriptionId: planned.subscriptionId ?? subscriptionIdOf(paymentId),
});
