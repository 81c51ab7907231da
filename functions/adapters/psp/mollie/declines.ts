import type { DeclineClass } from '../../../domain/mandates.ts';
import type { PaymentFailureCode } from '../../../domain/payment-failure.ts';
import { columnOf } from '../kit/declines.ts';

/**
 * Each `details.failureReason` Mollie's document lists for a failed card payment (mollie/openapi `specs.yaml`,
 * `payment-details-failure-reason-response`), read twice: as our code for a checkout attempt
 * (docs/orchestration.md#decline-codes) and as the class of a renewal's decline (docs/subscriptions.md#mollie).
 * They part where the buyer's presence matters: details mistyped on Mollie's page may pass at the next attempt,
 * while the same failure of a stored card will not. It lives beside the adapter, not in the descriptor, so that
 * only the functions that load Mollie's adapter carry it.
 */
const CARD_FAILURES: Readonly<
  Record<string, readonly [checkout: PaymentFailureCode, renewal: DeclineClass]>
> = {
  insufficient_funds: ['insufficient_funds', 'soft'],
  card_declined: ['do_not_honor', 'soft'],
  refused_by_issuer: ['do_not_honor', 'soft'],
  // Mollie cannot tell whose failure it was: neither the card's nor Mollie's for certain.
  unknown_reason: ['processing_error', 'soft'],
  authentication_required: ['authentication_required', 'authentication_required'],
  authentication_failed: ['authentication_required', 'authentication_required'],
  authentication_abandoned: ['authentication_required', 'authentication_required'],
  // The issuer's 3-D Secure server did not answer: the issuer failed, not the card (an outage, as every table
  // takes an unavailable issuer); a renewal still needs the buyer present to authenticate.
  authentication_unavailable_acs: ['psp_unavailable', 'authentication_required'],
  card_expired: ['expired_card', 'hard'],
  // Blocked or never activated by its issuer: no PSP can charge it (hard, as the other tables take a disabled card).
  inactive_card: ['lost_or_stolen_card', 'hard'],
  invalid_card_number: ['incorrect_details', 'hard'],
  invalid_card_holder_name: ['incorrect_details', 'hard'],
  invalid_cvv: ['incorrect_details', 'hard'],
  invalid_card_type: ['method_not_available', 'hard'],
  possible_fraud: ['suspected_fraud', 'hard'],
};

/** Mollie's card failure reasons as our codes, in the shape the kit's `declineOf` reads a descriptor's `declines`. */
export const MOLLIE_DECLINES: Readonly<Record<string, PaymentFailureCode>> = /* @__PURE__ */ columnOf(
  CARD_FAILURES,
  0,
);

/** How a renewal's card failure reason is classed; a reason not listed is soft (the retry schedule caps it). */
export const mollieRenewalClass = (reason: string): DeclineClass =>
  (Object.hasOwn(CARD_FAILURES, reason) && CARD_FAILURES[reason]?.[1]) || 'soft';
