import type { Decline, DeclineClass } from '../../../domain/mandates.ts';
import type { PaymentFailureCode, ReportedFailure } from '../../../domain/payment-failure.ts';
import { columnOf, declineOf, withIssuerWord } from '../kit/declines.ts';

/**
 * Adyen's "Refusal reasons" (docs.adyen.com/development-resources/refusal-reasons), each `refusalReasonCode` with
 * its fixed text, which a refused AUTHORISATION notification carries as its `reason`; those of a PIN or a chip at a
 * terminal are left out (we take no in-person payments). Read twice: as our code for a refused try on a payment
 * link (docs/orchestration.md#decline-codes) and as the class of a renewal's refusal (docs/subscriptions.md#adyen),
 * refined there by the merchant advice code and the raw acquirer result when the merchant has them sent
 * (`additionalData.merchantAdviceCode`, `refusalReasonRaw`). A code not listed is `processing_error` at checkout
 * and soft for a renewal (the retry schedule caps it). The issuer, the acquirer or the network failing is an outage
 * at checkout, as every table takes it, and soft for a renewal.
 */
const REFUSALS: Readonly<
  Record<string, readonly [reason: string, checkout: PaymentFailureCode, renewal: DeclineClass]>
> = {
  '2': ['Refused', 'do_not_honor', 'soft'],
  '3': ['Referral', 'do_not_honor', 'hard'],
  '4': ['Acquirer Error', 'psp_unavailable', 'soft'],
  '5': ['Blocked Card', 'lost_or_stolen_card', 'hard'],
  '6': ['Expired Card', 'expired_card', 'hard'],
  '7': ['Invalid Amount', 'limit_exceeded', 'hard'],
  '8': ['Invalid Card Number', 'incorrect_details', 'hard'],
  '9': ['Issuer Unavailable', 'psp_unavailable', 'soft'],
  '10': ['Not supported', 'method_not_available', 'hard'],
  '11': ['3D Not Authenticated', 'authentication_required', 'authentication_required'],
  '12': ['Not enough balance', 'insufficient_funds', 'soft'],
  '14': ['Acquirer Fraud', 'suspected_fraud', 'hard'],
  // Cancelled before it completed (by the shopper, the merchant or Adyen's risk checks): not the issuer's decline.
  '15': ['Cancelled', 'canceled', 'soft'],
  '16': ['Shopper Cancelled', 'canceled', 'soft'],
  '20': ['FRAUD', 'suspected_fraud', 'hard'],
  // Adyen could not submit the payment to the card network: not the card's fault.
  '21': ['Not Submitted', 'processing_error', 'soft'],
  '22': ['FRAUD-CANCELLED', 'suspected_fraud', 'hard'],
  '23': ['Transaction Not Permitted', 'method_not_available', 'hard'],
  '24': ['CVC Declined', 'incorrect_details', 'hard'],
  '25': ['Restricted Card', 'lost_or_stolen_card', 'hard'],
  // The cardholder revoked the standing authorisation at the issuer: it ends a renewal, not a buyer on the page.
  '26': ['Revocation Of Auth', 'do_not_honor', 'hard'],
  '27': ['Declined Non Generic', 'do_not_honor', 'soft'],
  '28': ['Withdrawal amount exceeded', 'limit_exceeded', 'soft'],
  '29': ['Withdrawal count exceeded', 'limit_exceeded', 'soft'],
  '31': ['Issuer Suspected Fraud', 'suspected_fraud', 'hard'],
  '32': ['AVS Declined', 'incorrect_details', 'soft'],
  '34': ['No checking account available on Card', 'method_not_available', 'hard'],
  '35': ['No savings account available on Card', 'method_not_available', 'hard'],
  '38': ['Authentication required', 'authentication_required', 'authentication_required'],
  // The card scheme's 3-D Secure directory server did not answer: the network failed, not the card.
  '39': ['RReq not received from DS', 'psp_unavailable', 'soft'],
  '42': ['3DS Authentication Error', 'authentication_required', 'authentication_required'],
  // Card networks charge for retrying past their limits; Adyen stops it.
  '46': ['Transaction blocked by Adyen to prevent excessive retry fees', 'limit_exceeded', 'hard'],
};

/** Adyen's refusal codes as our checkout codes, in the shape the kit's `declineOf` reads a descriptor's `declines`. */
export const ADYEN_DECLINES: Readonly<Record<string, PaymentFailureCode>> = /* @__PURE__ */ columnOf(
  REFUSALS,
  1,
);

/** Each refusal code's fixed text, as Adyen documents it (its tests hold the table to them). */
export const ADYEN_REFUSAL_REASONS: Readonly<Record<string, string>> = /* @__PURE__ */ columnOf(REFUSALS, 0);

/**
 * Mastercard's merchant advice codes: 03 (do not try again), 21 (payment cancellation) and 01 (new account
 * information) must never be retried; 02 (try later) and 24-30 (retry after a delay) may be. Network rules
 * outrank Adyen's mapped code.
 */
const ADVICE: Readonly<Record<string, DeclineClass>> = {
  '01': 'hard',
  '02': 'soft',
  '03': 'hard',
  '21': 'hard',
  ...Object.fromEntries(['24', '25', '26', '27', '28', '29', '30'].map((code) => [code, 'soft'])),
};

/**
 * Mastercard's advice on a refused try, when the merchant has Adyen send it: never try this card again (03, 21),
 * or the card was replaced (01). Network rules outrank Adyen's mapped code, as they do for renewals (`ADVICE`).
 */
const CHECKOUT_ADVICE: Readonly<Record<string, PaymentFailureCode>> = {
  '01': 'expired_card',
  '03': 'do_not_retry',
  '21': 'do_not_retry',
};

/**
 * The issuer's raw answer: lost (41) and stolen (43) cards have no refusal code of their own at Adyen (they map to
 * a generic one), and must never be retried; nor expired (54) or restricted (57, 62) ones.
 */
const RAW: Readonly<Record<string, DeclineClass>> = {
  '05': 'soft',
  '41': 'hard',
  '43': 'hard',
  '51': 'soft',
  '54': 'hard',
  '57': 'hard',
  '62': 'hard',
  '91': 'soft',
};

/**
 * The issuer's raw answer on a refused try, when the merchant has Adyen send it: a card lost (41), stolen (43),
 * expired (54) or restricted (62) is charged by no PSP, whatever generic code Adyen gives it (`RAW`).
 */
const CHECKOUT_RAW: Readonly<Record<string, PaymentFailureCode>> = {
  '41': 'lost_or_stolen_card',
  '43': 'lost_or_stolen_card',
  '54': 'expired_card',
  '62': 'lost_or_stolen_card',
};

/** The leading two-digit code of a value such as "02: Cannot approve at this time" or "51 : Insufficient funds". */
const leadingCode = (value: string | undefined): string | undefined => /^\s*(\d{2})\b/.exec(value ?? '')?.[1];

export interface AdyenRefusal {
  /** `refusalReasonCode`; absent in a notification, where `reason` names it. */
  code?: string | undefined;
  /** `refusalReason` (the notification's `reason`). */
  reason?: string | undefined;
  /** `additionalData.refusalReasonRaw`. */
  raw?: string | undefined;
  /** `additionalData.merchantAdviceCode`. */
  advice?: string | undefined;
}

/** A refusal as a `Decline`: its class by advice, then the raw result, then Adyen's code; its code Adyen's. */
export function adyenDecline(refusal: AdyenRefusal): Decline {
  const code = refusal.code ?? codeOfReason(refusal.reason);
  const known = code === undefined ? undefined : REFUSALS[code];
  const declineClass =
    ADVICE[leadingCode(refusal.advice) ?? ''] ?? RAW[leadingCode(refusal.raw) ?? ''] ?? known?.[2] ?? 'soft';
  return {
    class: declineClass,
    code: `adyen:${code ?? 'refused'}`,
    message: refusal.reason || known?.[0] || 'Adyen refused the payment.',
  };
}

/**
 * A try Adyen refused on a payment link (a refused AUTHORISATION), in our vocabulary: by its
 * `additionalData.refusalReasonCode` when the merchant has Adyen send it, else by the code whose fixed text its
 * `reason` is; a text of no listed code is `declined`, a code not listed `processing_error` (`declineOf`).
 * Mastercard's advice outranks the code, and so does the issuer's raw answer of a card no PSP can charge when the
 * code does not already say so.
 */
export function adyenAttemptDecline(
  item: { reason?: string | undefined; additionalData?: Record<string, string | undefined> | undefined },
  displayName: string,
): ReportedFailure {
  const code = item.additionalData?.refusalReasonCode || codeOfReason(item.reason);
  const message = `Adyen refused the buyer's payment${item.reason ? `: ${item.reason}` : ''}.`;
  const advice = leadingCode(item.additionalData?.merchantAdviceCode);
  const advised = advice === undefined ? undefined : CHECKOUT_ADVICE[advice];
  if (advised) return { code: advised, message: `${message} (${displayName} merchant advice ${advice})` };
  const mapped = declineOf({ displayName, declines: ADYEN_DECLINES }, code, message);
  const raw = item.additionalData?.refusalReasonRaw;
  const card = CHECKOUT_RAW[leadingCode(raw) ?? ''];
  return withIssuerWord(mapped, card && { code: card, said: `raw ${raw}` }, {
    displayName,
    message,
    pspCode: code,
  });
}

/** The refusal code whose fixed text a notification's `reason` is. */
function codeOfReason(reason: string | undefined): string | undefined {
  const text = reason?.trim().toLowerCase();
  if (!text) return undefined;
  return Object.entries(REFUSALS).find(([, [known]]) => known.toLowerCase() === text)?.[0];
}

/** A `resultCode` by which Adyen asks for the shopper (3-D Secure): the buyer must be present. */
export const SHOPPER_ACTIONS: ReadonlySet<string> = new Set([
  'RedirectShopper',
  'IdentifyShopper',
  'ChallengeShopper',
  'PresentToShopper',
]);
