import type { Payment } from '../domain/payment.ts';
import type { Mode } from '../domain/principal.ts';

/** Persistence of payments, stored beside their link. */
export interface PaymentRepository {
  /**
   * Stores `payment`: new (`before` undefined: it must not exist yet), or replacing `before` on condition that
   * the stored one is still at `before.version`. Throws `ConcurrentModificationError` when that fails.
   */
  save(payment: Payment, before?: Payment): Promise<void>;
  get(linkId: string, mode: Mode, id: string): Promise<Payment | undefined>;
  /** The link's payments, newest first. */
  listOfLink(linkId: string, mode: Mode): Promise<Payment[]>;
  /**
   * The link's payments made at or after `since`, newest first, reading no other: those with time-ordered ids
   * (`newPaymentId`), which every payment of a link created since they exist has.
   */
  listOfLinkSince(linkId: string, mode: Mode, since: Date): Promise<Payment[]>;
  /** Pending payments whose next check is due at `now` (the sweeper's work list), at most `limit`. */
  dueForCheck(now: Date, limit: number): Promise<{ link_id: string; mode: Mode; id: string }[]>;
  /** Every payment still pending through a connection, due for a check or not (whole list: operators' use). */
  pendingOfConnection(connectionId: string): Promise<{ link_id: string; mode: Mode; id: string }[]>;
}
