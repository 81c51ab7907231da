import { InvalidStateError, ValidationError } from './errors.ts';
import { type Transition, withEvent } from './link-events.ts';
import { paidPayment } from './link-payments.ts';
import { type Amount, fromMinorUnits, toMinorUnits } from './money.ts';
import { FIRST_CHECK_AFTER_MS, MAX_CHECK_INTERVAL_MS } from './payment.ts';
import {
  linkCurrency,
  type PaidPayment,
  type PaymentLink,
  type PspPayment,
  type Refund,
  type RefundReason,
  type RefundStatus,
} from './payment-link.ts';
import { type AmountRules, amountProblem } from './psp-rules.ts';

/**
 * Refunds of a paid link (docs/webhooks.md#refunds), pure: how much may still be refunded, what a request for a refund
 * becomes, and how a refund settles. The refunds of a link live in the link's own item, so reserving an amount,
 * recording the refund and moving the link's totals are one conditional write: the sum of refunds can never pass
 * the paid amount, whatever the concurrency, because the write says so.
 */

/** A PSP's reason for refusing a refund is kept to this many characters (it travels in webhooks). */
export const MAX_FAILURE_MESSAGE_LENGTH = 500;

/** A link keeps at most this many refunds (its item stays far below DynamoDB's 400 KB). */
export const MAX_REFUNDS_PER_LINK = 100;

/**
 * What one succeeded payment of the link may be refunded at most, in minor units: the amount it charged. Every
 * refund bound goes through here. A reusable link records each payment's amount with it (`paid_payments`), and a
 * single-use link its duplicate payments' (`duplicate_payments`); a single-use link's payment keeps it on the
 * link's `payment` (a buyer-chosen amount's is what the buyer chose).
 */
export function paymentAmountMinor(link: PaymentLink, payment: PspPayment): bigint {
  return toMinorUnits(totalsEntry(link, payment.id)?.amount ?? payment.amount);
}

/**
 * Where the refund totals of the link's payment `paymentId` are kept besides the link's own: a reusable link's
 * per payment (`paid_payments`, the link's totals moving too), a single-use link's duplicate payment's in its own
 * entry (`duplicate_payments`, the link's totals, its own payment's bound, left alone); undefined for a single-use
 * link's own payment, whose totals are the link's.
 */
export function perPaymentTotals(
  link: PaymentLink,
  paymentId: string,
): 'paid_payments' | 'duplicate_payments' | undefined {
  if (link.reusable) return 'paid_payments';
  return link.duplicate_payments[paymentId] ? 'duplicate_payments' : undefined;
}

/** The entry that keeps the refund totals of the link's payment `paymentId` (`perPaymentTotals`), if any. */
export function totalsEntry(link: PaymentLink, paymentId: string): PaidPayment | undefined {
  return link.reusable ? link.paid_payments[paymentId] : link.duplicate_payments[paymentId];
}

/**
 * What a payment's refunds have reserved so far, in minor units: in its entry when it has one
 * (`perPaymentTotals`), else on the link itself (a single-use link's own payment).
 */
export function reservedMinor(link: PaymentLink, payment: PspPayment): bigint {
  if (perPaymentTotals(link, payment.id)) {
    return BigInt(totalsEntry(link, payment.id)?.refund_reserved_minor ?? 0);
  }
  return BigInt(link.refund_reserved_minor);
}

/** Minor units of the payment (default: a single-use link's) that no pending or succeeded refund holds yet. */
export function refundableMinor(link: PaymentLink, payment: PspPayment | null = link.payment): bigint {
  if (!payment) return 0n;
  return paymentAmountMinor(link, payment) - reservedMinor(link, payment);
}

/**
 * The payment a refund request names: on a reusable link `payment_id` is required and must be one of its
 * succeeded payments; on a single-use link it defaults to the link's payment, and may name it or one of the link's
 * duplicate payments recorded for refunds (`duplicate_payments`: the caller records one first, `duplicateEntry`).
 * A single-use link that is not paid is `invalid_state`.
 */
export function refundedPayment(link: PaymentLink, paymentId: string | undefined): PspPayment {
  if (link.reusable) {
    if (paymentId === undefined) {
      throw new ValidationError([
        {
          pointer: '/payment_id',
          detail: 'Required for a reusable payment link: name the payment to refund.',
        },
      ]);
    }
    const payment = paidPayment(link, paymentId);
    if (!payment) {
      throw new ValidationError([
        { pointer: '/payment_id', detail: 'Must be a succeeded payment of this payment link.' },
      ]);
    }
    return payment;
  }
  if (link.status !== 'paid' || !link.payment) {
    throw new InvalidStateError(`Only a paid payment link can be refunded; this one is ${link.status}.`);
  }
  if (paymentId === undefined || paymentId === link.payment.id) return link.payment;
  const duplicate = link.duplicate_payments[paymentId];
  if (!duplicate) {
    throw new ValidationError([
      {
        pointer: '/payment_id',
        detail: `Must be ${link.payment.id}, the payment of this payment link, or a duplicate payment of it.`,
      },
    ]);
  }
  return duplicate;
}

/**
 * What the PSP that took a payment allows of its refunds (its descriptor's): its amount rules, and whether it
 * refunds at all, only the whole payment, or any part of it (docs/orchestration.md#capabilities).
 */
export interface RefundRules {
  amounts: AmountRules;
  refunds: 'none' | 'whole' | 'partial';
}

/**
 * A new pending refund of `requested` (default: all that remains of the payment) of the payment the request
 * names (`refundedPayment`). A payment whose PSP reference is not known yet, or whose PSP takes no refunds
 * through us (`rulesOf`), is `invalid_state`; another currency, an amount over what remains of the payment,
 * nothing left to refund, a part of a payment whose PSP refunds only whole payments, or an amount that PSP cannot
 * express (`amountProblem`) is a 422 pointing at the field. The repository then reserves the amount with a write
 * conditioned on what remains at that moment.
 */
export function requestRefund(
  link: PaymentLink,
  requested: Amount | undefined,
  refundId: string,
  now: Date,
  rulesOf: (provider: string) => RefundRules,
  paymentId?: string,
  why?: { reason: RefundReason; reason_detail?: string | undefined },
): Refund {
  const payment = refundedPayment(link, paymentId);
  if (payment.reference === null) {
    // Paid on the PSP's word before its reference arrived: nothing to refund yet
    // (docs/orchestration.md#a-success-before-its-reference).
    throw new InvalidStateError(
      'The payment provider has not yet sent its reference of this payment; try the refund again shortly.',
    );
  }
  if (link.refunds.length >= MAX_REFUNDS_PER_LINK) {
    throw new InvalidStateError(`A payment link takes at most ${MAX_REFUNDS_PER_LINK} refunds.`);
  }
  const rules = rulesOf(payment.provider);
  if (rules.refunds === 'none') {
    const { psp } = rules.amounts;
    throw new InvalidStateError(
      `${psp} takes no refunds through this service: refund the payment at ${psp}.`,
    );
  }
  const currency = linkCurrency(link);
  if (requested && requested.currency !== currency) {
    throw new ValidationError([
      { pointer: '/amount/currency', detail: `Must be ${currency}, the currency of the payment.` },
    ]);
  }
  const remaining = refundableMinor(link, payment);
  const minor = requested ? toMinorUnits(requested) : remaining;
  const pointer = requested ? '/amount/value' : '/amount';
  if (minor > remaining || remaining === 0n) {
    throw new ValidationError([
      {
        pointer,
        detail: `At most ${fromMinorUnits(remaining, currency)} ${currency} of the payment remains to be refunded.`,
      },
    ]);
  }
  const amount = { value: requested?.value ?? fromMinorUnits(minor, currency), currency };
  const problem = pspRefundProblem(rules, amount, minor === paymentAmountMinor(link, payment));
  if (problem) throw new ValidationError([{ pointer, detail: problem }]);
  const at = now.toISOString();
  return {
    id: refundId,
    object: 'refund',
    payment_link_id: link.id,
    payment_id: payment.id,
    status: 'pending',
    amount,
    failure: null,
    provider_reference: null,
    ...(why && { reason: why.reason }),
    ...(why?.reason_detail && { reason_detail: why.reason_detail }),
    created_at: at,
    updated_at: at,
  };
}

/**
 * Why the PSP that took the payment cannot make this refund: a part of a payment when it refunds only whole ones,
 * or an amount it cannot express; undefined when it can.
 */
function pspRefundProblem(rules: RefundRules, amount: Amount, whole: boolean): string | undefined {
  if (rules.refunds === 'whole' && !whole) {
    return `${rules.amounts.psp} refunds only the whole payment, in one refund.`;
  }
  return amountProblem(rules.amounts, amount, 'refund');
}

/** What the PSP said of a refund. */
export interface RefundOutcome {
  status: RefundStatus;
  providerReference: string | null;
  failureMessage: string | null;
}

/**
 * What the PSP said of the link's refund `refundId`. A final status settles a pending refund: the totals follow
 * (a success counts as refunded, a failure frees its reservation) and `refund.succeeded` or `refund.failed` is
 * emitted, written with the link in one commit. A succeeded refund that the PSP now says failed (a PSP fails a
 * refund the card network returned, or reports a reversal after the success) is reversed the same way: it becomes `failed`, no longer counts as refunded nor reserved, and `refund.failed` is
 * emitted. A pending outcome may only bring the PSP's reference (`reference`, no event). `undefined` when nothing
 * changes: the refund is unknown or failed already, or the PSP says nothing new. `from` is the status the
 * commit is conditioned on.
 */
export function settleRefund(
  link: PaymentLink,
  refundId: string,
  outcome: RefundOutcome,
  now: Date,
):
  | { kind: 'settled'; transition: Transition; refund: Refund; from: RefundStatus }
  | { kind: 'reference'; link: PaymentLink }
  | undefined {
  const refunds = link.refunds;
  const current = refunds.find((refund) => refund.id === refundId);
  if (!current) return undefined;
  const reversal = current.status === 'succeeded' && outcome.status === 'failed';
  if (current.status !== 'pending' && !reversal) return undefined;
  const providerReference = outcome.providerReference ?? current.provider_reference;
  if (outcome.status === 'pending' && providerReference === current.provider_reference) return undefined;
  const refund: Refund = {
    ...current,
    status: outcome.status,
    provider_reference: providerReference,
    failure: outcome.status === 'failed' ? refundFailure(outcome.failureMessage) : null,
    updated_at: now.toISOString(),
  };
  const updated = refunds.map((existing) => (existing.id === refundId ? refund : existing));
  if (outcome.status === 'pending') {
    return { kind: 'reference', link: { ...link, refunds: updated, version: link.version + 1 } };
  }
  const delta = settledDelta(current.amount, outcome.status, reversal);
  const after = withMovedTotals({ ...link, refunds: updated }, current.payment_id, delta);
  const transition = withEvent(link, after, `refund.${outcome.status}`, now, (snapshot) => ({
    ...refund,
    payment_link: snapshot,
  }));
  return { kind: 'settled', transition, refund, from: current.status };
}

/** A failed refund's failure, with the PSP's reason when it gave one. */
function refundFailure(reason: string | null): { code: string; message: string } {
  const message = reason ?? 'The payment service provider refused the refund.';
  return { code: 'refund_failed', message: message.slice(0, MAX_FAILURE_MESSAGE_LENGTH) };
}

/** Minor units a settled refund moves between the totals. */
interface RefundDelta {
  refunded: number;
  reserved: number;
}

/**
 * A success counts as refunded what was reserved; a failure frees its reservation, and a reversal (a failure
 * after a success) also takes back what was counted as refunded.
 */
function settledDelta(amount: Amount, status: RefundStatus, reversal: boolean): RefundDelta {
  const minor = Number(toMinorUnits(amount));
  if (status === 'succeeded') return { refunded: minor, reserved: 0 };
  return { refunded: reversal ? -minor : 0, reserved: -minor };
}

/**
 * The link with the refund totals of the refund's payment moved by `delta`: the link's (a single-use link's own
 * payment, or every payment of a reusable link, which also moves the payment's entry), or a single-use link's
 * duplicate payment's entry alone (`perPaymentTotals`).
 */
function withMovedTotals(link: PaymentLink, paymentId: string, delta: RefundDelta): PaymentLink {
  const kept = perPaymentTotals(link, paymentId);
  const totals =
    kept === 'duplicate_payments'
      ? link
      : {
          ...link,
          refund_refunded_minor: link.refund_refunded_minor + delta.refunded,
          refund_reserved_minor: link.refund_reserved_minor + delta.reserved,
        };
  const entry = totalsEntry(link, paymentId);
  if (!kept || !entry) return totals;
  const moved: PaidPayment = {
    ...entry,
    refund_refunded_minor: entry.refund_refunded_minor + delta.refunded,
    refund_reserved_minor: entry.refund_reserved_minor + delta.reserved,
  };
  return totals.reusable
    ? { ...totals, paid_payments: { ...totals.paid_payments, [entry.id]: moved } }
    : { ...totals, duplicate_payments: { ...totals.duplicate_payments, [entry.id]: moved } };
}

/** When the sweeper first looks at a newly requested refund: the PSP's own notification usually comes first. */
export function firstRefundCheckAt(now: Date): string {
  return new Date(now.getTime() + FIRST_CHECK_AFTER_MS).toISOString();
}

export function pendingRefunds(link: PaymentLink): Refund[] {
  return link.refunds.filter((refund) => refund.status === 'pending');
}

/**
 * After the sweeper asked about a link's pending refunds: while some are still pending, look again twice as late
 * each time (at most `MAX_CHECK_INTERVAL_MS` apart); once none is, the link leaves the sweeper's list. The new
 * version of the link, or `undefined` when it is not on the list.
 */
export function afterRefundCheck(link: PaymentLink, now: Date): PaymentLink | undefined {
  if (!link.refund_check_at) return undefined;
  if (pendingRefunds(link).length === 0) {
    return { ...link, refund_check_at: null, refund_checks: 0, version: link.version + 1 };
  }
  const checks = link.refund_checks + 1;
  const wait = Math.min(FIRST_CHECK_AFTER_MS * 2 ** checks, MAX_CHECK_INTERVAL_MS);
  return {
    ...link,
    refund_checks: checks,
    refund_check_at: new Date(now.getTime() + wait).toISOString(),
    version: link.version + 1,
  };
}
