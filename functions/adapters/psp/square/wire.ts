import type { Square } from 'square';
import { type LineItem, linesCharging } from '../../../domain/amount.ts';
import type { Amount } from '../../../domain/money.ts';
import type { PaymentMethod } from '../../../domain/payment-methods.ts';
import type { FeeReport } from '../../../domain/payment-money.ts';
import { fromPspMinorUnits, pspMinorUnits } from '../../../domain/psp-rules.ts';
import type { PspRefundStatus, PspSessionStatus, SessionRequest } from '../../../ports/psp.ts';
import { declineOf } from '../kit/declines.ts';
import type { square } from './descriptor.ts';

/**
 * Square's objects as the adapter reads and writes them (the SDK's camelCase types, `square` 46; the wire is
 * snake_case, Square's `api.json`): the session id, the order a link charges, the statuses read back.
 */

/**
 * A session is its payment link and the order the link created, `<link id>:<order id>`: the link is what ends it
 * (deleted), the order what every payment of it names (`payment.order_id`) and what carries our ids. A notification
 * names only the order: a bare order id is a session too, read back the same way.
 */
export function sessionIdOf(linkId: string, orderId: string): string {
  return `${linkId}:${orderId}`;
}

export function partsOf(sessionId: string): { linkId: string | undefined; orderId: string } {
  const separator = sessionId.indexOf(':');
  return separator === -1
    ? { linkId: undefined, orderId: sessionId }
    : { linkId: sessionId.slice(0, separator), orderId: sessionId.slice(separator + 1) };
}

/** Square's `Money`: the amount in the currency's minor units (ISO 4217 at Square). */
export const squareMoney = (descriptor: typeof square, amount: Amount): Square.Money => ({
  amount: pspMinorUnits(descriptor.amounts, amount),
  currency: amount.currency as Square.Currency,
});

/**
 * Our amount of a Square `Money` (the SDK's, whose amount is a bigint, or as the wire spells it), or null when it
 * lacks either part.
 */
export function amountOf(
  descriptor: typeof square,
  money: { amount?: bigint | number | null; currency?: string | null } | null | undefined,
): Amount | null {
  if (money?.amount === undefined || money.amount === null || !money.currency) return null;
  return fromPspMinorUnits(descriptor.amounts, BigInt(money.amount), money.currency);
}

/**
 * The order a payment link charges: the link's own lines (which add up to the amount) or one line at the amount,
 * at the connection's location, with our payment id as `reference_id` and our ids as `metadata` (Square keeps
 * them on the order that every payment of the link names). `expires_at` is when our session ends: the link is
 * deleted when it is read after that.
 */
export function squareOrder(
  descriptor: typeof square,
  request: SessionRequest,
  locationId: string,
): Square.Order {
  const { link, amount } = request;
  const lines: readonly LineItem[] = linesCharging(link.line_items, amount) ?? [
    { name: link.description || `Payment ${link.id}`, quantity: 1, unit_amount: amount },
  ];
  return {
    locationId,
    referenceId: request.paymentId,
    lineItems: lines.map((line) => ({
      name: line.name,
      quantity: String(line.quantity),
      basePriceMoney: squareMoney(descriptor, line.unit_amount),
    })),
    metadata: {
      link_id: link.id,
      payment_id: request.paymentId,
      mode: link.mode,
      expires_at: request.expiresAt.toISOString(),
      ...(request.references?.client_reference_id
        ? { client_reference_id: request.references.client_reference_id }
        : {}),
    },
  };
}

/**
 * The methods its page offers beside cards (`accepted_payment_methods`), each on only when the buyer may use it;
 * nothing when the link names no methods (Square's own choice).
 */
export function acceptedMethods(
  descriptor: typeof square,
  methods: readonly PaymentMethod[] | null,
): Square.AcceptedPaymentMethods | undefined {
  if (!methods) return undefined;
  const on = (word: string) => methods.some((method) => descriptor.methods[method] === word);
  return {
    applePay: on('apple_pay'),
    googlePay: on('google_pay'),
    cashAppPay: on('cash_app_pay'),
    afterpayClearpay: on('afterpay_clearpay'),
  };
}

type PaymentState = Pick<PspSessionStatus, 'state' | 'failure'>;

/**
 * A payment's state (`payment.status`): COMPLETED is paid; APPROVED (authorized, completed by Square for a
 * payment link) and PENDING (a method still under way) are pending; FAILED is a decline, with the card's error
 * code; CANCELED ends the attempt.
 */
export function paymentStateOf(descriptor: typeof square, payment: Square.Payment): PaymentState {
  switch (payment.status) {
    case 'COMPLETED':
      return { state: 'succeeded', failure: null };
    case 'FAILED': {
      const code = payment.cardDetails?.errors?.[0]?.code;
      return { state: 'failed', failure: declineOf(descriptor, code, 'Square declined the payment.') };
    }
    case 'CANCELED':
      return {
        state: 'canceled',
        failure: { code: 'canceled', message: 'The Square payment was canceled.' },
      };
    default:
      return { state: 'pending', failure: null };
  }
}

/**
 * What Square kept of a completed payment: the sum of its `processing_fee` entries (a later adjustment is an
 * entry of its own), once it lists any. Square adds them shortly after the payment completes, so a payment read
 * back before that, or one whose entries name other currencies, reports none.
 */
export function feeOf(descriptor: typeof square, payment: Square.Payment): FeeReport | undefined {
  const fees = payment.processingFee ?? [];
  const currency = payment.amountMoney?.currency;
  if (payment.status !== 'COMPLETED' || !currency || fees.length === 0) return undefined;
  if (fees.some((fee) => fee.amountMoney?.currency !== currency || fee.amountMoney.amount == null)) {
    return undefined;
  }
  const total = fees.reduce((sum, fee) => sum + BigInt(fee.amountMoney?.amount ?? 0), 0n);
  const fee = amountOf(descriptor, { amount: total, currency });
  return fee ? { fee } : undefined;
}

/** An order nobody paid: pending while its link may be paid, expired once its link is deleted (CANCELED). */
export function unpaidStateOf(order: Square.Order, linkEnded: boolean): PaymentState {
  return order.state === 'CANCELED' || linkEnded
    ? { state: 'expired', failure: { code: 'expired', message: 'The Square payment link was deleted.' } }
    : { state: 'pending', failure: null };
}

/** The payment the order's last tender names: the one the buyer made last on the link. */
export const lastPaymentIdOf = (order: Square.Order): string | undefined =>
  order.tenders?.findLast((tender) => tender.paymentId)?.paymentId ?? undefined;

/** Our session's end, as the order keeps it; undefined when it has none (not one of ours). */
export function sessionEndOf(order: Square.Order): number | undefined {
  const end = order.metadata?.expires_at;
  const at = end ? Date.parse(end) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Our refund id and link id, kept in the refund's `reason` (Square keeps no metadata on refunds): what a refund
 * notification finds its refund by. Null for a refund made in Square's dashboard.
 */
export const refundReason = (refundId: string, linkId: string): string => `Refund ${refundId} of ${linkId}`;
const REASON = /^Refund (re_[A-Za-z0-9]+) of (pl_[A-Za-z0-9]+)$/;

/** A refund's state (PENDING, COMPLETED, REJECTED, FAILED) and our ids from its reason. */
export function refundStatusOf(refund: Square.PaymentRefund): PspRefundStatus {
  const ours = REASON.exec(refund.reason ?? '');
  const state =
    refund.status === 'COMPLETED'
      ? 'succeeded'
      : refund.status === 'REJECTED' || refund.status === 'FAILED'
        ? 'failed'
        : 'pending';
  return {
    reference: refund.id,
    refundId: ours?.[1] ?? null,
    linkId: ours?.[2] ?? null,
    state,
    failureMessage: state === 'failed' ? `Square: the refund is ${refund.status}` : null,
  };
}
