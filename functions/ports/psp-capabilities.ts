import type { Amount } from '../domain/money.ts';
import type { PspSession } from '../domain/payment-link.ts';
import type { PayoutItemKind, PayoutStatus } from '../domain/settlement.ts';
import type { Psp, PspRefundRequest, PspRefundStatus, PspSessionStatus, SessionEnd } from './psp.ts';

/**
 * What only some PSPs can do, each an interface beside the core `Psp` and a type guard (as Hyperswitch's one
 * trait per flow), so that the port does not widen with each PSP. A PSP's descriptor declares which it has
 * (`PspDescriptor.capabilities`); the use cases ask with the guard and fall back where
 * docs/orchestration.md#capabilities says.
 */

/**
 * Ends a session early, so it can no longer be paid. Without it, a session ends by itself at its expiry: a PSP
 * that takes the money only when we capture (`CapturesLater`) is released instead, and a PSP with neither keeps
 * one payable session by showing the same session again (docs/orchestration.md#capabilities).
 */
export interface EndsSessions {
  /**
   * Ends a session so it can no longer be paid (see `SessionEnd`): one call. Throws when the PSP could not be
   * asked, so a session is never taken as ended without the PSP saying so.
   */
  expireSession(session: PspSession): Promise<SessionEnd>;
}

/**
 * Takes the money only when we capture (deferred capture, docs/orchestration.md#deferred-capture): the buyer
 * approves or authorizes on the PSP's page, and we capture only while the link can still be paid by that attempt.
 */
export interface CapturesLater {
  /**
   * Captures the session the buyer approved, once, with `paymentId` as the idempotency key, and answers its
   * status after. Called only by `captureWhilePayable` (functions/use-cases/deferred-capture.ts), which captures
   * only while the link can still be paid by that attempt. A refusal of the capture (a declined funding source) is
   * answered as a failed status; a PSP that could not be asked throws. Such a PSP's buyer returns to our address
   * (`{checkout_base}/{id}/complete?payment=…`), which captures first and then sends the buyer on to the link's
   * `redirect_url`.
   */
  captureSession(session: { id: string; paymentId: string }): Promise<PspSessionStatus>;
  /**
   * PSP calls one `captureSession` makes (a capture, then a read of the payment: 2); absent: 1. The notification's
   * call budget counts them (`NOTIFICATION_PSP_CALLS`).
   */
  readonly captureCalls?: number;
}

/**
 * Voids an authorization the buyer made on an attempt that was released (never captured): a deferred-capture PSP
 * whose buyer's payment is an authorization. Without it, the attempt is asked to end where the PSP can
 * (`EndsSessions`), and an approval that cannot be voided lapses at the PSP.
 */
export interface VoidsAuthorizations {
  /** Voids it, once. Called only by `captureWhilePayable` after the release holds. Throws when the PSP could not be asked. */
  voidAuthorization(session: { id: string; paymentId: string }): Promise<void>;
}

/**
 * Refunds a payment it took (whether in part too is the descriptor's `partial_refunds`). Without it, a refund
 * request on its payments is refused before anything is reserved (docs/webhooks.md#refunds).
 */
export interface Refunds {
  /**
   * How long the PSP answers a request repeated with the same idempotency key as it answered the first: a refund
   * whose first request went unanswered is asked for again only within it (docs/webhooks.md#refunds).
   */
  readonly idempotencyWindowMs: number;
  /**
   * Asks for a refund, with `request.refundId` as the idempotency key (see `idempotencyWindowMs`). Throws
   * `PspRefusalError` when the PSP definitely refused, `PspCredentialsRejectedError` when it refused our
   * credentials (neither made a refund); `PspOutageError` leaves the outcome open.
   */
  refund(request: PspRefundRequest): Promise<PspRefundStatus>;
  /** What the PSP says of the refund now (a PSP with no API to read one knows only its notifications). */
  retrieveRefund(reference: string): Promise<PspRefundStatus>;
}

/** One payout (or settlement) of the money a connection took, as its PSP lists it. */
export interface PspPayout {
  /** The PSP's own id of it (`po_…`, `stl_…`). */
  reference: string;
  /** What it credits the merchant's bank account: its payments less their fees and its refunds. */
  amount: Amount;
  /** The day it arrives or arrived (`YYYY-MM-DD`, UTC); null while the PSP has not said (an open settlement). */
  arrivalDate: string | null;
  status: PayoutStatus;
  /** When the PSP made it (ISO 8601): the sweeper reads on from the newest it has seen. */
  createdAt: string;
}

/** One line of a payout: a balance transaction, a settled payment or refund. */
export interface PspPayoutItem {
  kind: PayoutItemKind;
  /** The PSP's id of the line itself (a balance transaction's, or the payment's or refund's own). */
  reference: string;
  /** The PSP's id of the payment it belongs to, as our payments record it (`provider_reference`); null: none. */
  paymentReference: string | null;
  /** The PSP's id of the refund, for a refund's line (as our refunds record it); null otherwise. */
  refundReference: string | null;
  /** Its gross amount, negative for money out (a refund). */
  amount: Amount;
  /** What the PSP kept of it; null when the PSP reports none for the line. */
  fee: Amount | null;
  /** What it adds to the payout (`amount` less `fee`). */
  net: Amount;
}

/**
 * Lists the payouts of the money it took and what each contains, so that they can be matched to our payments
 * and refunds (docs/api.md#settlements). Without it, a connection's payouts are not read: its PSP has no API that
 * lists them with their contents, and its descriptor does not declare `lists_payouts`.
 */
export interface ListsPayouts {
  /**
   * The payouts created at or after `since`, in any order, every page up to `MAX_PAYOUTS_LISTED` (the newest).
   * Throws when the PSP could not be asked.
   */
  listPayouts(since: Date): Promise<PspPayout[]>;
  /** Every line of one payout (all of its pages). Throws when the PSP could not be asked. */
  payoutItems(payout: PspPayout): Promise<PspPayoutItem[]>;
}

/** The most payouts one listing reads (its newest): a connection's reading point is rarely further behind. */
export const MAX_PAYOUTS_LISTED = 1_000;

/** One request to a PSP as its adapter makes it: bounded by the call budget, its errors translated. */
export type PspCall = <T>(request: () => Promise<T>) => Promise<T>;

export const canEndSessions = (psp: Psp): psp is Psp & EndsSessions =>
  typeof (psp as Partial<EndsSessions>).expireSession === 'function';

export const canCaptureLater = (psp: Psp): psp is Psp & CapturesLater =>
  typeof (psp as Partial<CapturesLater>).captureSession === 'function';

export const canVoidAuthorizations = (psp: Psp): psp is Psp & VoidsAuthorizations =>
  typeof (psp as Partial<VoidsAuthorizations>).voidAuthorization === 'function';

export const canRefund = (psp: Psp): psp is Psp & Refunds =>
  typeof (psp as Partial<Refunds>).refund === 'function' &&
  typeof (psp as Partial<Refunds>).retrieveRefund === 'function';

export const canListPayouts = (psp: Psp): psp is Psp & ListsPayouts =>
  typeof (psp as Partial<ListsPayouts>).listPayouts === 'function' &&
  typeof (psp as Partial<ListsPayouts>).payoutItems === 'function';
