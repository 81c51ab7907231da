import type { Provider } from './connection.ts';
import { type Amount, fromMinorUnits } from './money.ts';
import type { Recurring } from './subscription-schedule.ts';

/**
 * Mandates (docs/subscriptions.md#mandates): what a PSP stores so that it can be asked to charge the buyer again
 * without them (a saved payment method, a mandate, a vault token at each PSP: docs/subscriptions.md#mandates names
 * them; the sandbox's simulated `sbm_`). We keep references only, never card data; a mandate lives at one
 * connection, which the subscription is pinned to.
 */
export interface MandateRef {
  connection_id: string;
  provider: Provider;
  /** The PSP's customer the mandate belongs to (the sandbox's `sbc_`). */
  customer: string;
  /** What a charge names (the PSP's saved method or mandate; the sandbox's `sbm_`). */
  reference: string;
  /** The PSP's own word for the method (`card`, `sepa_debit`, `directdebit`): a renewal may need it. */
  method: string;
  /** For people: "Visa •••• 4242", all a PSP tells of a card; null when it tells nothing. */
  display: string | null;
}

/**
 * Why a renewal was declined, from the PSP's answer (docs/subscriptions.md#retries): `soft` is retried on the
 * account's schedule; `hard` (lost or stolen card, closed account, revoked mandate) and `authentication_required`
 * (the buyer must be present) never are: the buyer is sent an update link.
 */
export const DECLINE_CLASSES = ['soft', 'hard', 'authentication_required'] as const;
export type DeclineClass = (typeof DECLINE_CLASSES)[number];

export interface Decline {
  class: DeclineClass;
  /**
   * The PSP's own code, prefixed with its provider (`sandbox:insufficient_funds`, `<provider>:lost_card`), or one of
   * ours, unprefixed, where no PSP code exists (`charge_refused`, `connection_removed`: functions/use-cases/subscription-charges.ts).
   */
  code: string;
  message: string;
}

/** Whether a link's payment must open a mandate: a subscription link, or a subscription's update link. */
export const opensMandate = (link: { recurring?: unknown; subscription_update?: unknown }): boolean =>
  (link.recurring !== null && link.recurring !== undefined) ||
  (link.subscription_update !== null && link.subscription_update !== undefined);

/**
 * What a link's session charges now: nothing on a subscription link with a trial, whose payment only sets up the
 * mandate (docs/subscriptions.md#trials); the amount asked on every other link.
 */
export function chargedNow(
  link: { recurring?: { trial_days: number | null } | null },
  amount: Amount,
): Amount {
  if (!link.recurring?.trial_days) return amount;
  return { value: fromMinorUnits(0n, amount.currency), currency: amount.currency };
}

/**
 * What a session that opens a mandate asks beside its payment (docs/subscriptions.md#mandates): the buyer agrees on
 * the PSP's page to be charged again without being there, on these terms.
 */
export interface OpensMandate {
  /** The subscription it is for (a new one's id is derived from the session's payment: `subscriptionIdOf`). */
  subscriptionId: string;
  /** A trial: the mandate is set up and nothing is charged now (the session's amount is zero: `chargedNow`). */
  withoutCharge: boolean;
  /** What each period charges. */
  periodAmount: Amount;
  /** The subscription link's terms; null for an update link, whose buyer agreed to them already. */
  recurring: Recurring | null;
}
