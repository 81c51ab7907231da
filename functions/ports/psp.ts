import type { BuyerDetail, BuyerDetails } from '../domain/buyer.ts';
import type { BuyerReferences } from '../domain/buyer-references.ts';
import type { Provider, PspConnection } from '../domain/connection.ts';
import { InvalidNotificationError } from '../domain/errors.ts';
import type { Decline, MandateRef, OpensMandate } from '../domain/mandates.ts';
import type { Amount } from '../domain/money.ts';
import type { PaymentState, ReportedFailure } from '../domain/payment.ts';
import type { PaymentLink, PspSession, RefundReason } from '../domain/payment-link.ts';
import type { PaymentMethod } from '../domain/payment-methods.ts';
import type { FeeReport } from '../domain/payment-money.ts';

export type { PaymentFailureCode } from '../domain/payment.ts';
export type { PspSession } from '../domain/payment-link.ts';

/** Where the PSP sends the buyer and its notifications, and what it must echo back. */
export interface CheckoutReturn {
  /** After a completed payment: the link's `redirect_url`, or our neutral "payment received" page. */
  successUrl: string;
  /** When the buyer gives up or the attempt fails: back to our checkout page, which offers to try again. */
  cancelUrl: string;
  /**
   * `{BASE_URL}/psp/{provider}/notifications/{connection_id}`: some PSPs take it per payment, others have it
   * configured once per connection (the CLI prints it).
   */
  notificationUrl: string;
  expiresAt: Date;
  /** Our payment id ("pay_..."), sent to the PSP as metadata / merchant reference so that its notifications
   * and status name it. */
  paymentId: string;
  /**
   * The buyer's locale tag (`nl`, `nl-BE`; functions/domain/locale.ts): the PSP's page speaks it, each adapter
   * spelling it as its PSP does.
   */
  locale: string;
  /**
   * The methods the buyer may use at this connection (the link's `payment_methods` that the connection serves,
   * functions/domain/payment-methods.ts); null: whatever the PSP offers.
   */
  paymentMethods: PaymentMethod[] | null;
}

/**
 * What checkout asks a PSP to open: a session for `link` that charges exactly `amount`, with the return
 * addresses of the attempt. The amount is decided by checkout (`amountDue`, functions/domain/amount.ts: the
 * link's fixed amount, its lines' sum, or the buyer's choice within its range) and recorded on the attempt's
 * payment; an adapter charges it and never works out an amount of its own from the link.
 */
export interface SessionRequest extends CheckoutReturn {
  link: PaymentLink;
  amount: Amount;
  /**
   * What the link's address said of the buyer (docs/api.md#buyer-references): each adapter sends the reference and
   * the e-mail prefill where its PSP takes them. Buyer-supplied: never logged.
   */
  references?: BuyerReferences;
  /**
   * The details of the link's `collect` that the PSP's page is to ask (`detailsPspPageAsks`,
   * docs/checkout.md#on-the-psps-page), decided by checkout; absent: none. Each adapter spells them as its PSP does.
   */
  pageAsks?: BuyerDetail[];
  /**
   * What the buyer answered on our page before this session (docs/checkout.md#buyer-details): an adapter sends
   * the details its PSP needs for every session (`PspRules.needs`, which our page asks then). Personal data:
   * never logged.
   */
  buyer?: BuyerDetails;
  /** The link's payment must open a mandate (a subscription link, an update link): `HoldsMandates`, below. */
  opensMandate?: OpensMandate;
}

export type PspPaymentState = PaymentState;

/**
 * What ending a session achieved: `ended` (it can no longer be paid, and was not paid through this call's
 * answer), or `refused` (the PSP would not end it: it is paid, being paid, or already over; the caller asks
 * `retrieveSession` which). A PSP that could not be asked throws.
 */
export type SessionEnd = 'ended' | 'refused';

/** A verified notification, reduced to what we act on. Some PSPs batch several items per request. */
export interface PspNotification {
  /** The PSP's own event type, for logs. */
  type: string;
  /** The session/payment it concerns; its status is then fetched with `retrieveSession`. */
  sessionId: string | null;
  /** When it concerns a refund: the PSP's refund id, whose status is then fetched with `retrieveRefund`. */
  refundReference: string | null;
  /** Whether the PSP says it is of live mode (each spells it its own way). */
  livemode: boolean;
}

/** The true state of a session, fetched from the PSP (never trusted from a notification body). */
export interface PspSessionStatus {
  id: string;
  /** Our pay_ id echoed back (null for sessions created before payments existed). */
  paymentId: string | null;
  linkId: string | null;
  state: PspPaymentState;
  failure: ReportedFailure | null;
  /**
   * A try the PSP refused on a session it keeps payable (the buyer may try again), as the PSP told it in the
   * notification just verified, with state `pending` (or `expired`): it cannot be asked for it later. Kept on the
   * pending payment, whose session's expiry then fails it with this decline (`Payment.declined_attempt`,
   * docs/orchestration.md#decline-codes). Absent at PSPs whose session's own status carries its decline.
   */
  declinedAttempt?: ReportedFailure;
  /**
   * With state `pending`: the buyer's money is under way at the PSP, not yet confirmed (a payment by an
   * asynchronous method, such as a bank debit, which takes days): the payment stays pending past its session's end
   * until the PSP says it succeeded or failed, or a bound no such payment exceeds has passed (`stillPending`,
   * functions/domain/payment-checks.ts), and an earlier refused try is not how the session ends
   * (docs/orchestration.md#money-under-way).
   */
  paymentUnderWay?: true;
  /** The PSP's payment id once paid (its payment's, charge's or transaction's id). */
  paymentReference: string | null;
  /**
   * What the PSP charges (or charged, or authorized) in this session, read back from the PSP in our decimal form
   * and its currency; null when the PSP's answer has none (a session of another integration that charges
   * nothing). A success is taken as paid only at its payment's own amount, never without one (`checkChargedAmount`,
   * functions/use-cases/charged-amounts.ts; docs/security.md#amounts-the-psp-reports). A payment whose own record
   * was lost is recorded at it: for a buyer-chosen amount (`amount_range`) nothing else of ours holds it
   * (`recordSessionStatus`, functions/use-cases/payments.ts).
   */
  amount: Amount | null;
  livemode: boolean;
  /**
   * Set only by a PSP that takes the money when we capture (`CapturesLater`; docs/orchestration.md#deferred-capture):
   * `approved` when the buyer approved the session and it awaits our capture, `awaiting_approval` before that;
   * both with state `pending`. Absent at PSPs where the buyer's payment moves the money by itself.
   */
  deferredCapture?: 'awaiting_approval' | 'approved';
  /**
   * What the buyer gave on the PSP's page (the details its page was asked for, docs/checkout.md#on-the-psps-page),
   * normalised (functions/domain/buyer-details.ts); absent when the PSP reports none. Stored on the payment when it
   * succeeds. Personal data: never logged.
   */
  buyer?: BuyerDetails;
  /**
   * What the PSP reports it keeps of the payment (`fee`) and credits for it (`net`), one or both, as its answer
   * gives them; absent when the PSP reports neither (yet). Read when the payment succeeds, where it is recorded in
   * place of the connection's configured estimate (`reportedFee`, functions/domain/payment-money.ts;
   * docs/api.md#fees-and-refunds-of-a-payment).
   */
  fee?: FeeReport;
}

export interface PspRefundRequest {
  /** Our "re_..." id: the PSP idempotency key, and echoed back with `linkId` (metadata / merchant reference). */
  refundId: string;
  /** The "pl_..." link refunded: a refund notification finds its link by it. */
  linkId: string;
  paymentReference: string;
  /** Exact decimal string and currency. */
  amount: Amount;
  /** The link's description, for PSPs that show the refund to the buyer; absent or null when it has none. */
  description?: string | null;
  /**
   * Why, when the merchant said (`Refund.reason`), for PSPs that take one (some take the same words but `other`);
   * an adapter whose PSP takes none leaves it.
   */
  reason?: RefundReason;
}

export interface PspRefundStatus {
  /** The PSP's refund id. */
  reference: string;
  /**
   * Our ids as the PSP echoes them back (`PspRefundRequest`), so that a notification about the refund finds it;
   * null for a refund the PSP holds without them (made in its dashboard, or before they were sent).
   */
  refundId: string | null;
  linkId: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  failureMessage: string | null;
}

/**
 * The closed set of PSP failures, the same for every PSP (as Hyperswitch's `ConnectorError`): an adapter throws
 * one of these for every expected failure of a call, translating its SDK's errors in one place
 * (`pspFailure`, functions/adapters/psp/kit/calls.ts), and callers decide from `kind` alone:
 * - `refused`: the PSP answered and definitely refused this request (`PspRefusalError`);
 * - `unavailable`: no answer in time, a network error, a 5xx, a 429, or an answer without what it must carry
 *   (`PspOutageError`);
 * - `credentials_rejected`: the PSP refused the connection's credentials, 401 or 403
 *   (`PspCredentialsRejectedError`);
 * - `notification_not_authentic`: a notification that is forged, foreign or about nothing the PSP knows
 *   (`InvalidNotificationError`, functions/domain/errors.ts, which answers it over HTTP).
 * Only `refused` is a problem of the request; the other call failures are the PSP's own, which count against a
 * connection's health at checkout (docs/orchestration.md#health).
 */
export type PspFailure =
  | PspRefusalError
  | PspOutageError
  | PspCredentialsRejectedError
  | InvalidNotificationError;
export type PspFailureKind = PspFailure['kind'];

/**
 * The PSP answered and definitely refused the request: a problem of the request at that PSP, not a failure of
 * the PSP. Adapters throw it in two places, each with its own rule for which answers are refusals:
 * - `createSession`: the PSP's validation answer (HTTP 400 or 422: an amount or currency it cannot take, a field
 *   it rejects). Checkout fails over without counting it against the connection's health
 *   (docs/orchestration.md#health); anything else (no answer, a network error, 5xx, 429, refused credentials)
 *   is the PSP's failure.
 * - `refund`: a 4xx other than those that leave the outcome open (408 timeout, 409 conflict, 429 rate limit, and
 *   a request with the same idempotency key still running) and refused credentials (401, 403:
 *   `PspCredentialsRejectedError`), e.g. the payment was already refunded in the PSP's dashboard
 *   (`isRefusalStatus`). The refund then fails and frees its amount (docs/webhooks.md#refunds).
 * A request the adapter can tell locally that the PSP would refuse (`amountProblem`, functions/domain/psp-rules.ts) is refused the same way.
 * `message` is the PSP's reason, sent to the merchant in `refund.failed`.
 */
export class PspRefusalError extends Error {
  readonly kind = 'refused';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PspRefusalError';
  }
}

/**
 * The PSP failed the call: no answer within its budget, a network error, a 5xx, a 429, or an answer we cannot
 * use (a session without its checkout URL, or of the other mode). The outcome of a refund is then open.
 */
export class PspOutageError extends Error {
  readonly kind = 'unavailable';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PspOutageError';
  }
}

/**
 * The PSP refused the connection's credentials (401, 403: a revoked key, a merchant account the key may not
 * use). The PSP did nothing: a refund asked with them is definitely not made.
 */
export class PspCredentialsRejectedError extends Error {
  readonly kind = 'credentials_rejected';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PspCredentialsRejectedError';
  }
}

/** The error as one of the closed set (`PspFailure`), or undefined when it is none of them (a bug of ours). */
export function pspFailureOf(error: unknown): PspFailure | undefined {
  return error instanceof PspRefusalError ||
    error instanceof PspOutageError ||
    error instanceof PspCredentialsRejectedError ||
    error instanceof InvalidNotificationError
    ? error
    : undefined;
}

/** Whether an HTTP status from a PSP is a definite refusal of a refund (`PspRefusalError`). */
export function isRefusalStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
}

/**
 * One PSP adapter bound to one connection's credentials: the core every PSP has (open a session, read its
 * status with amount and currency, verify a notification). What only some PSPs can do is a capability of its
 * own, an interface with a type guard (functions/ports/psp-capabilities.ts) that its descriptor declares
 * (functions/ports/psp-descriptor.ts); the use cases ask for it and fall back where
 * docs/orchestration.md#capabilities says. Adapters: functions/adapters/psp/<folder>/adapter.ts. Every call is
 * bounded by `CALL_BUDGETS.psp` (functions/domain/call-budgets.ts) and fits the calling function's timeout. Every
 * expected failure is thrown as one of the closed set (`PspFailure`). Mode checks: an adapter refuses
 * (`InvalidNotificationError`) any notification or status whose livemode is not its connection's mode.
 */
export interface Psp {
  readonly provider: Provider;
  /** Origin of the PSP-hosted page, for the checkout page's `form-action` directive. */
  readonly checkoutOrigin: string;
  /** How long its sessions may live (see `sessionExpiry` in functions/domain/checkout/sessions.ts). */
  readonly sessionLimits: SessionLimits;
  /**
   * Creates a hosted checkout session for `request.link` at `request.amount`: the attempt `request.paymentId`.
   * Throws `PspRefusalError` when the PSP refuses it (its validation answer), `PspOutageError` or
   * `PspCredentialsRejectedError` when the PSP failed.
   */
  createSession(request: SessionRequest): Promise<PspSession>;
  /**
   * For a PSP whose notifications are verified by looking up, at the PSP, the id they name (the webhook carries
   * only the id): that id, read from the raw body before any call, or undefined. The caller then limits such
   * lookups of ids the PSP does not know (docs/security.md#psp-notifications).
   */
  notificationLookupId?(rawBody: string): string | undefined;
  /**
   * PSP calls `verifyNotification` makes that `retrieveSession` does not save (a PSP whose verification is a call
   * of its own: 1); absent: none (a signature checked locally, or a lookup whose payment the read that follows
   * reuses). The notification's call budget counts them (`NOTIFICATION_PSP_CALLS`).
   */
  readonly verificationCalls?: number;
  /**
   * Verifies a notification over the exact raw body; throws `InvalidNotificationError` (with `unknownId` when
   * the PSP said it knows no such id).
   */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]>;
  /**
   * The session's true status, fetched from the PSP, with the amount and currency it charges (a success without
   * them is never taken as paid: `checkChargedAmount`).
   */
  retrieveSession(sessionId: string): Promise<PspSessionStatus>;
  /** What the PSP expects as the notification response body (e.g. "[accepted]"); default JSON. */
  readonly notificationAck?: { contentType: string; body: string };
}

/** How long a PSP's sessions may live, and how long we ask for when the link allows (`sessionExpiry`). */
export interface SessionLimits {
  minMs: number;
  maxMs: number;
  preferredMs: number;
}

/**
 * Builds the adapters of one PSP's connections (its adapter module's `createFactory`, loaded by `PSP_FACTORIES` in
 * functions/adapters/psp/factories.ts on its first use and handed the PSP's descriptor), loading the PSP's SDK when it builds its first. Each adapter is cached for at most 5 minutes, so rotated credentials are picked up.
 */
export interface PspFactory {
  create(connection: PspConnection): Promise<Psp>;
}

export type { Decline, DeclineClass, MandateRef, OpensMandate } from '../domain/mandates.ts';

/** One attempt to charge a mandate, off-session. */
export interface MandateCharge {
  mandate: MandateRef;
  amount: Amount;
  /**
   * One per attempt, `<subscription>.<period>.<attempt>` (`chargeKey`): every PSP answers a repeated key with its
   * first answer, declines included, so a retry needs a new key, and a resent attempt the same one.
   */
  idempotencyKey: string;
  /** Our payment (`pay_…`): metadata or merchant reference at the PSP, so that its notifications name it. */
  paymentId: string;
  subscriptionId: string;
  period: number;
  description: string;
}

/** The PSP's answer to a charge: a decline is an answer, never a throw. */
export type MandateChargeResult =
  | { state: 'succeeded'; reference: string; amount: Amount }
  /** Under way (a bank debit): settled later by `retrieveCharge`. */
  | { state: 'pending'; reference: string | null }
  | {
      state: 'failed';
      reference: string | null;
      decline: Decline;
      /** False once the PSP said the mandate is gone (revoked, closed): it is never charged again. */
      mandateUsable: boolean;
    };

/**
 * Holds mandates and charges them (docs/subscriptions.md#mandates): the capability a connection needs to be routed
 * a subscription link (a descriptor that declares `holds_mandates` says its adapter has it).
 */
export interface HoldsMandates {
  /** How long the PSP answers a repeated idempotency key as it answered the first (a resend must fall within it). */
  readonly chargeIdempotencyWindowMs: number;
  /**
   * The mandate a completed session opened: `ready`, `pending` (the PSP has not confirmed it yet: asked again
   * later), or `none` (the buyer's method cannot be charged again).
   */
  mandateOf(session: {
    id: string;
    paymentReference: string | null;
  }): Promise<
    { state: 'ready'; mandate: MandateRef } | { state: 'pending' } | { state: 'none'; reason: string }
  >;
  /**
   * Charges the mandate, once per `idempotencyKey`. A decline is an answer (`failed`, with its class); only an
   * unknown outcome throws (`PspOutageError`: no answer, a 5xx, a 429), and the caller sends the same charge again.
   */
  chargeMandate(charge: MandateCharge): Promise<MandateChargeResult>;
  /** What became of a charge the PSP answered `pending`. */
  retrieveCharge(reference: string): Promise<MandateChargeResult>;
}

export const canHoldMandates = (psp: Psp): psp is Psp & HoldsMandates =>
  typeof (psp as Partial<HoldsMandates>).chargeMandate === 'function';
