import type { Decline, DeclineClass } from '../../../domain/mandates.ts';

/**
 * A declined renewal's class from Stripe's error (the 402 of a charge, or a PaymentIntent's `last_payment_error`;
 * docs/subscriptions.md#stripe). The issuer's advice comes first (`advice_code`: Stripe gives there what deprecated
 * decline codes used to say), then the decline code, then the error's code; a code of neither list is soft, and
 * the account's retry schedule caps it.
 */

/** What Stripe's error says of a declined charge. */
export interface StripeDeclineFacts {
  code?: string | null;
  decline_code?: string | null;
  advice_code?: string | null;
  message?: string | null;
}

const ADVICE: Partial<Record<string, DeclineClass>> = {
  try_again_later: 'soft',
  // Retrying these can cost network fees (Visa category 1, Mastercard advice 03 and 21).
  do_not_try_again: 'hard',
  confirm_card_data: 'hard',
};

/**
 * Codes that never succeed on a retry: a card lost, stolen, closed or replaced; a mandate the buyer revoked at
 * the bank; a method that cannot take the charge. Card and SEPA Direct Debit codes alike.
 */
const HARD = new Set([
  'lost_card',
  'stolen_card',
  'pickup_card',
  'restricted_card',
  'fraudulent',
  'merchant_blacklist',
  'security_violation',
  'expired_card',
  'incorrect_number',
  'invalid_number',
  'invalid_account',
  'new_account_information_available',
  'revocation_of_authorization',
  'revocation_of_all_authorizations',
  'stop_payment_order',
  'card_not_supported',
  'currency_not_supported',
  'transaction_not_allowed',
  'not_permitted',
  'service_not_allowed',
  'do_not_try_again',
  'account_closed',
  'debit_not_authorized',
  'bank_account_restricted',
  'invalid_account_number',
  'bank_ownership_changed',
]);

const AUTHENTICATION = 'authentication_required';

export function declineClass({ code, decline_code, advice_code }: StripeDeclineFacts): DeclineClass {
  const advised = advice_code ? ADVICE[advice_code] : undefined;
  if (advised) return advised;
  if (code === AUTHENTICATION || decline_code === AUTHENTICATION) return 'authentication_required';
  if ((decline_code && HARD.has(decline_code)) || (code && HARD.has(code))) return 'hard';
  return 'soft';
}

/** The decline as we keep it: its class, Stripe's most precise code, and Stripe's message (no card data in it). */
export function stripeDecline(facts: StripeDeclineFacts): Decline {
  const code = facts.decline_code ?? facts.code ?? 'card_declined';
  return {
    class: declineClass(facts),
    code: `stripe:${code}`,
    message: facts.message ?? `Stripe declined the charge (${code}).`,
  };
}
