import type { Decline, DeclineClass } from '../../../domain/mandates.ts';

/**
 * How an Adyen refusal of a renewal is classed (docs/subscriptions.md#adyen): by `refusalReasonCode` (Adyen's
 * "Refusal reasons", each with its fixed `refusalReason` text, which a refused AUTHORISATION notification carries as
 * its `reason`), refined by the merchant advice code and the raw acquirer result when the merchant has them sent
 * (`additionalData.merchantAdviceCode`, `refusalReasonRaw`). A code not listed is soft: the retry schedule caps it.
 */
const REFUSALS: Readonly<Record<string, readonly [reason: string, declineClass: DeclineClass]>> = {
  '2': ['Refused', 'soft'],
  '3': ['Referral', 'hard'],
  '4': ['Acquirer Error', 'soft'],
  '5': ['Blocked Card', 'hard'],
  '6': ['Expired Card', 'hard'],
  '7': ['Invalid Amount', 'hard'],
  '8': ['Invalid Card Number', 'hard'],
  '9': ['Issuer Unavailable', 'soft'],
  '10': ['Not supported', 'hard'],
  '11': ['3D Not Authenticated', 'authentication_required'],
  '12': ['Not enough balance', 'soft'],
  '14': ['Acquirer Fraud', 'hard'],
  '15': ['Cancelled', 'soft'],
  '20': ['FRAUD', 'hard'],
  '22': ['FRAUD-CANCELLED', 'hard'],
  '23': ['Transaction Not Permitted', 'hard'],
  '24': ['CVC Declined', 'hard'],
  '25': ['Restricted Card', 'hard'],
  // The cardholder revoked the standing authorisation at the issuer.
  '26': ['Revocation Of Auth', 'hard'],
  '27': ['Declined Non Generic', 'soft'],
  '28': ['Withdrawal amount exceeded', 'soft'],
  '29': ['Withdrawal count exceeded', 'soft'],
  '31': ['Issuer Suspected Fraud', 'hard'],
  '34': ['No checking account available on Card', 'hard'],
  '35': ['No savings account available on Card', 'hard'],
  '38': ['Authentication required', 'authentication_required'],
  '42': ['3DS Authentication Error', 'authentication_required'],
  // Card networks charge for retrying past their limits; Adyen stops it.
  '46': ['Transaction blocked by Adyen to prevent excessive retry fees', 'hard'],
};

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
    ADVICE[leadingCode(refusal.advice) ?? ''] ?? RAW[leadingCode(refusal.raw) ?? ''] ?? known?.[1] ?? 'soft';
  return {
    class: declineClass,
    code: `adyen:${code ?? 'refused'}`,
    message: refusal.reason || known?.[0] || 'Adyen refused the payment.',
  };
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
