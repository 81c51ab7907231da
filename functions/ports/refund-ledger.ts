import type { Transition } from '../domain/link-events.ts';
import type { PaidPayment, PaymentLink, Refund, RefundStatus } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';

/**
 * The refunds of paid links, kept in the link's own item (docs/webhooks.md#refunds): each write is conditioned on
 * the refund amounts, not on the link's version, so concurrent refunds of one link all land while money remains,
 * and none can be undone by a version-conditioned write (which sees the version they moved on).
 */
export interface RefundLedger {
  /**
   * Appends a new pending refund to a paid link and reserves its amount, in one write conditioned on the
   * refund's payment being a succeeded payment of the link (a single-use link: the link is paid), on fewer than
   * `maxRefunds` refunds, and on enough of that payment remaining then (`paidMinor`, its amount in minor units;
   * a reusable link counts per payment, in `paid_payments`, a single-use link's duplicate payment in its own
   * entry, `duplicate_payments`, leaving the link's totals to its own payment), and on no refund of the same id
   * having been reserved since `link` was read (two requests for one refund id at once reserve it once). The same
   * write puts the link on the refund sweeper's list at `checkAt`. `duplicate`: a single-use link's duplicate
   * payment that `link` does not hold yet, recorded by this write with the refund reserved on it, on condition
   * that no other write recorded it since.
   * Returns false when the condition fails; the caller reads the link again and decides.
   */
  reserve(
    link: PaymentLink,
    refund: Refund,
    limits: {
      paidMinor: bigint;
      refundMinor: bigint;
      maxRefunds: number;
      checkAt: string;
      duplicate?: PaidPayment | undefined;
    },
  ): Promise<boolean>;
  /**
   * Writes a refund's settlement (`settleRefund` in functions/domain/refund.ts): its event, then the link's
   * refund entry, totals and event list in one write conditioned on that refund still having the status `from`
   * there (`pending`, or `succeeded` for a reversal). Returns false when it moved on already; the event is then
   * an orphan that nothing delivers. Once it landed, the payment's own item gets the payment's refund total as
   * that write left it (`amount_refunded` in the books, docs/data-model.md#books).
   */
  commitSettlement(transition: Transition, refund: Refund, from: RefundStatus): Promise<boolean>;
  /**
   * Stores the PSP's reference of a pending refund (`refund`, as `settleRefund` made it from `link`), in one write
   * conditioned on that refund being still pending there, not on the link's version: the link's other refunds
   * may move on meanwhile; then the refund's entry in the books, as after every refund write. Returns false when
   * the refund is no longer pending (settled meanwhile).
   */
  recordReference(link: PaymentLink, refund: Refund): Promise<boolean>;
  /** Paid links whose `refund_check_at` is at or before `now` (the refund sweeper's work list), at most `limit`. */
  dueForCheck(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]>;
  /**
   * Every refund still pending through a connection (the connection that took its link's payment), with its
   * link's id, due for a check or not (whole list: operators' use).
   */
  pendingOfConnection(connectionId: string): Promise<{ link_id: string; id: string }[]>;
}
