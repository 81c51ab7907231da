import type { RefundReason } from '../../../domain/payment-link.ts';

/** A payment's own page: its money, its buyer and answers, its routing and its timeline. */
export interface PaymentTexts {
  title: (id: string) => string;
  amount: string;
  refunded: string;
  remaining: string;
  fee: string;
  net: string;
  /** A fee or net not known (not succeeded, or the PSP does not say). */
  unknown: string;
  /** Why it failed: the failure's code as the API gives it, and its message. */
  failure: string;
  pspReference: string;
  connection: string;
  timeline: string;
  /** The attempt's PSP session was opened at this connection: the buyer went to its page. */
  opened: (connection: string) => string;
  /** The payment's state now, when no event says when it got there. */
  lastChange: (status: string) => string;
  refund: (id: string, amount: string, status: string) => string;
  event: (type: string) => string;
  /** The refund dialog: the form, then its confirmation, which says back what the form was read as. */
  refundTitle: string;
  refundAmount: (currency: string) => string;
  reason: string;
  reasons: Record<RefundReason, string>;
  reasonDetail: string;
  review: string;
  /** The amount read, the payment, and what remains of it after. */
  confirmQuestion: (amount: string, paymentId: string) => string;
  remainsAfter: (remaining: string) => string;
  confirm: (amount: string) => string;
  back: string;
  /** The typed amount is not one amount in the page's language, or more than remains. */
  amountUnreadable: (remaining: string) => string;
  detailMissing: string;
  refundRequested: string;
}
