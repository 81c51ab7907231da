import type { PspConnection } from '../connection.ts';
import { chargedNow, type OpensMandate, opensMandate } from '../mandates.ts';
import type { Amount } from '../money.ts';
import type { PaymentLink } from '../payment-link.ts';
import type { RoutingDecision } from '../routing-decision.ts';
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

/**
 * Which providers' PSPs hold mandates, and which of them set one up without a charge (a trial's), from their
 * descriptors (`PspConnections.holdsMandates`, functions/use-cases/psp-connections.ts): the domain knows no PSP by
 * name.
 */
export interface MandateHolders {
  holdsMandates(provider: string, withoutCharge: boolean): boolean;
}

/**
 * What routing gave, kept to the connections whose PSP holds mandates (its descriptor declares `holds_mandates`)
 * when the link's payment opens one, and for a trial to those whose PSP sets one up without a charge
 * (`mandates_without_charge`: a PSP that cannot would charge the buyer during their trial); the decision's
 * candidates too, as they are recorded on the payment. Applied after routing, so that an account whose
 * connections hold none gets no connection at all: the built-in sandbox serves only an account that has no
 * connection (`routeDecision`).
 */
export function routedFor(
  link: Pick<PaymentLink, 'recurring' | 'subscription_update'>,
  routed: { connections: PspConnection[]; decision: RoutingDecision },
  holdsMandates: MandateHolders['holdsMandates'],
): { connections: PspConnection[]; decision: RoutingDecision } {
  if (!opensMandate(link)) return routed;
  const withoutCharge = (link.recurring?.trial_days ?? 0) > 0;
  const connections = routed.connections.filter((connection) =>
    holdsMandates(connection.provider, withoutCharge),
  );
  const kept = new Set(connections.map((connection) => connection.id));
  const candidates = routed.decision.candidates.filter((candidate) => kept.has(candidate.connection));
  return { connections, decision: { ...routed.decision, candidates } };
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
