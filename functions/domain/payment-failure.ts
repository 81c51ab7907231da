/**
 * Why an attempt failed, in one vocabulary across PSPs (docs/orchestration.md#decline-codes): each adapter maps its
 * PSP's own codes to these through its descriptor's `declines` table. `psp_unavailable` is a failover (the PSP could
 * not open a session); `amount_mismatch` a success its PSP reported at another amount or currency than the payment's
 * (functions/domain/charged-amount.ts); `declined` a decline whose PSP gave no reason we map; `processing_error` a
 * reason the PSP gave that its table does not know; `do_not_retry` an issuer's word that this card must not be tried
 * again (Visa's category 1 declines, Mastercard's advice codes 03 and 21), which a later attempt at any PSP could be
 * charged a network fee for.
 */
export const FAILURE_CODES = [
  'declined',
  'expired',
  'canceled',
  'psp_error',
  'psp_unavailable',
  'amount_mismatch',
  'insufficient_funds',
  'do_not_honor',
  'do_not_retry',
  'expired_card',
  'incorrect_details',
  'suspected_fraud',
  'lost_or_stolen_card',
  'authentication_required',
  'limit_exceeded',
  'method_not_available',
  'processing_error',
] as const;
export type PaymentFailureCode = (typeof FAILURE_CODES)[number];

/**
 * What a failure says of trying again elsewhere: `soft` may pass at another connection or a moment later, `hard`
 * will not (the card or the buyer is the problem, or money already moved), `outage` is the PSP failing, not the
 * buyer. Recovery re-routes after `soft` and `outage` only.
 */
export const FAILURE_CLASSES = ['soft', 'hard', 'outage'] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** The one table of classes: a code's class is the same whichever PSP reported it. */
export const FAILURE_CLASS: Readonly<Record<PaymentFailureCode, FailureClass>> = {
  declined: 'soft',
  expired: 'soft',
  canceled: 'soft',
  psp_error: 'soft',
  psp_unavailable: 'outage',
  amount_mismatch: 'hard',
  insufficient_funds: 'soft',
  do_not_honor: 'soft',
  do_not_retry: 'hard',
  expired_card: 'hard',
  incorrect_details: 'soft',
  suspected_fraud: 'hard',
  lost_or_stolen_card: 'hard',
  authentication_required: 'soft',
  limit_exceeded: 'soft',
  method_not_available: 'soft',
  processing_error: 'soft',
};

/** A failure as a PSP reports it (through its adapter): the code in our vocabulary, the class follows from it. */
export interface ReportedFailure {
  code: PaymentFailureCode;
  message: string;
}

export interface PaymentFailure extends ReportedFailure {
  class: FailureClass;
}

/** `failure` with the class of its code (`FAILURE_CLASS`). */
export const classified = (failure: ReportedFailure): PaymentFailure => ({
  code: failure.code,
  class: FAILURE_CLASS[failure.code],
  message: failure.message,
});

/** Whether recovery may re-route after `failure`: not after a `hard` one (docs/orchestration.md#recovery). */
export const reroutable = (failure: Pick<PaymentFailure, 'class'> | null): boolean =>
  failure?.class !== 'hard';
