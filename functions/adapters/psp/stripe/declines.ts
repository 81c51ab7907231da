import type { Decline, DeclineClass } from '../../../domain/mandates.ts';
import type { PaymentFailureCode, ReportedFailure } from '../../../domain/payment-failure.ts';
import { columnOf, declineOf, withIssuerWord } from '../kit/declines.ts';

/**
 * Stripe's decline codes (docs.stripe.com/declines/codes), the error codes a card error carries without one, and
 * the bank-debit failure codes of SEPA Direct Debit, read twice: as our code for a checkout attempt
 * (docs/orchestration.md#decline-codes) and as the class of a renewal's decline (docs/subscriptions.md#stripe).
 * They part where the buyer's presence matters: a number mistyped on Stripe's page may pass at the next attempt,
 * while the same failure of a stored card will not. An issuer's "do not try again", a revoked authorization or a
 * stop-payment order is `do_not_retry` at checkout (hard: no recovery tries that card elsewhere) and ends a
 * stored card's renewals. The renewal column is hard for a card
 * lost, stolen, closed or replaced, a mandate revoked at the bank, a method that cannot take the charge;
 * `authentication_required` asks for the buyer; anything else is soft. It lives beside the adapter, not in the
 * descriptor, so that only the functions that load Stripe's adapter carry it.
 */
const DECLINES: Readonly<Record<string, readonly [checkout: PaymentFailureCode, renewal: DeclineClass]>> = {
  insufficient_funds: ['insufficient_funds', 'soft'],
  card_declined: ['do_not_honor', 'soft'],
  generic_decline: ['do_not_honor', 'soft'],
  do_not_honor: ['do_not_honor', 'soft'],
  call_issuer: ['do_not_honor', 'soft'],
  approve_with_id: ['do_not_honor', 'soft'],
  no_action_taken: ['do_not_honor', 'soft'],
  try_again_later: ['do_not_honor', 'soft'],
  do_not_try_again: ['do_not_retry', 'hard'],
  revocation_of_authorization: ['do_not_retry', 'hard'],
  revocation_of_all_authorizations: ['do_not_retry', 'hard'],
  stop_payment_order: ['do_not_retry', 'hard'],
  expired_card: ['expired_card', 'hard'],
  // The card was replaced: as an expired one, no PSP can charge it.
  new_account_information_available: ['expired_card', 'hard'],
  incorrect_number: ['incorrect_details', 'hard'],
  invalid_number: ['incorrect_details', 'hard'],
  incorrect_cvc: ['incorrect_details', 'soft'],
  invalid_cvc: ['incorrect_details', 'soft'],
  incorrect_zip: ['incorrect_details', 'soft'],
  incorrect_address: ['incorrect_details', 'soft'],
  invalid_expiry_month: ['incorrect_details', 'soft'],
  invalid_expiry_year: ['incorrect_details', 'soft'],
  incorrect_pin: ['incorrect_details', 'soft'],
  invalid_pin: ['incorrect_details', 'soft'],
  // A live payment with one of Stripe's test cards.
  testmode_decline: ['incorrect_details', 'soft'],
  fraudulent: ['suspected_fraud', 'hard'],
  merchant_blacklist: ['suspected_fraud', 'hard'],
  security_violation: ['suspected_fraud', 'hard'],
  lost_card: ['lost_or_stolen_card', 'hard'],
  stolen_card: ['lost_or_stolen_card', 'hard'],
  pickup_card: ['lost_or_stolen_card', 'hard'],
  restricted_card: ['lost_or_stolen_card', 'hard'],
  invalid_account: ['lost_or_stolen_card', 'hard'],
  authentication_required: ['authentication_required', 'authentication_required'],
  // The buyer failed 3-D Secure on Stripe's page; an off-session renewal is not challenged so.
  payment_intent_authentication_failure: ['authentication_required', 'soft'],
  offline_pin_required: ['authentication_required', 'soft'],
  online_or_offline_pin_required: ['authentication_required', 'soft'],
  card_velocity_exceeded: ['limit_exceeded', 'soft'],
  card_decline_rate_limit_exceeded: ['limit_exceeded', 'soft'],
  withdrawal_count_limit_exceeded: ['limit_exceeded', 'soft'],
  pin_try_exceeded: ['limit_exceeded', 'soft'],
  invalid_amount: ['limit_exceeded', 'soft'],
  card_not_supported: ['method_not_available', 'hard'],
  currency_not_supported: ['method_not_available', 'hard'],
  transaction_not_allowed: ['method_not_available', 'hard'],
  not_permitted: ['method_not_available', 'hard'],
  service_not_allowed: ['method_not_available', 'hard'],
  duplicate_transaction: ['processing_error', 'soft'],
  // The issuer, the network or Stripe failed, not the card: an outage (as every table takes an unavailable issuer).
  issuer_not_available: ['psp_unavailable', 'soft'],
  processing_error: ['psp_unavailable', 'soft'],
  reenter_transaction: ['psp_unavailable', 'soft'],
  // SEPA Direct Debit: the account is gone, blocked, or not the payer's to debit.
  account_closed: ['lost_or_stolen_card', 'hard'],
  bank_ownership_changed: ['lost_or_stolen_card', 'hard'],
  invalid_account_number: ['incorrect_details', 'hard'],
  bank_account_restricted: ['method_not_available', 'hard'],
  debit_not_authorized: ['do_not_honor', 'hard'],
  // No account at that IBAN, or one its bank froze: as a closed one, no PSP can debit it.
  no_account: ['lost_or_stolen_card', 'hard'],
  account_frozen: ['lost_or_stolen_card', 'hard'],
  // The bank returned the debit without a reason it names: as a card's generic decline.
  other: ['do_not_honor', 'soft'],
};

/** Stripe's codes as our checkout codes, in the shape the kit's `declineOf` reads a descriptor's `declines`. */
export const STRIPE_DECLINES: Readonly<Record<string, PaymentFailureCode>> = /* @__PURE__ */ columnOf(
  DECLINES,
  0,
);

/** What Stripe's error says of a declined charge (a 402's, or a PaymentIntent's `last_payment_error`). */
export interface StripeDeclineFacts {
  code?: string | null;
  decline_code?: string | null;
  advice_code?: string | null;
  message?: string | null;
}

/** Stripe's most precise code of a decline: the issuer's reason, else the error's code. */
export const stripeDeclineCode = (facts: StripeDeclineFacts): string | undefined =>
  facts.decline_code ?? facts.code ?? undefined;

/**
 * A checkout attempt Stripe declined, in our vocabulary (docs/orchestration.md#decline-codes): its code through the
 * table, but the issuer's advice not to try the card again (`advice_code: do_not_try_again`, which Stripe gives
 * beside a generic decline code) is `do_not_retry` unless the code already says no PSP can charge the card: that
 * card tried elsewhere by recovery may cost the merchant a network fee.
 */
export function stripeCheckoutDecline(
  facts: StripeDeclineFacts,
  displayName: string,
  message: string,
): ReportedFailure {
  const code = stripeDeclineCode(facts);
  const mapped = declineOf({ displayName, declines: STRIPE_DECLINES }, code, message);
  const doNotRetry =
    facts.advice_code === 'do_not_try_again'
      ? { code: 'do_not_retry' as const, said: `advice ${facts.advice_code}` }
      : undefined;
  return withIssuerWord(mapped, doNotRetry, { displayName, message, pspCode: code });
}

const ADVICE: Partial<Record<string, DeclineClass>> = {
  try_again_later: 'soft',
  // Retrying these can cost network fees (Visa category 1, Mastercard advice 03 and 21).
  do_not_try_again: 'hard',
  confirm_card_data: 'hard',
};

const renewalClassOf = (code: string | null | undefined): DeclineClass | undefined =>
  code && Object.hasOwn(DECLINES, code) ? DECLINES[code]?.[1] : undefined;

/**
 * A declined renewal's class from Stripe's error (docs/subscriptions.md#stripe). The issuer's advice comes first
 * (`advice_code`: Stripe gives there what deprecated decline codes used to say), then the decline code and the
 * error's code through the table; a code the table lacks is soft, and the account's retry schedule caps it.
 */
export function declineClass({ code, decline_code, advice_code }: StripeDeclineFacts): DeclineClass {
  const advised = advice_code ? ADVICE[advice_code] : undefined;
  if (advised) return advised;
  const classes = [renewalClassOf(decline_code), renewalClassOf(code)];
  if (classes.includes('authentication_required')) return 'authentication_required';
  return classes.includes('hard') ? 'hard' : 'soft';
}

/** The decline as we keep it: its class, Stripe's most precise code, and Stripe's message (no card data in it). */
export function stripeDecline(facts: StripeDeclineFacts): Decline {
  const code = stripeDeclineCode(facts) ?? 'card_declined';
  return {
    class: declineClass(facts),
    code: `stripe:${code}`,
    message: facts.message ?? `Stripe declined the charge (${code}).`,
  };
}
