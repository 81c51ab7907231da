import { markPaid, type Transition, withBuyerInput, withEvent } from './link-events.ts';
import { placesAfterPayment } from './link-places.ts';
import { type Payment, type PaymentResource, paymentAmount } from './payment.ts';
import type { PaidPayment, PaymentLink, PspPayment } from './payment-link.ts';

/**
 * The succeeded payments of a link: a reusable link records each (`addPayment`) with its own refund totals, a
 * single-use link has its one `payment` (`markPaid`, ./link-events.ts).
 */
/**
 * A reusable link takes at most this many payments, `max_payments` or not: each one is an entry of the link's
 * own item (its refund totals), which must stay far below DynamoDB's 400 KB (docs/api.md#reusable-links).
 */
export const MAX_PAYMENTS_PER_LINK = 500;

/**
 * The PSP confirmed a payment of the link: a single-use link is paid (`markPaid`, ./link-events.ts). A reusable
 * link (docs/api.md#reusable-links) records each payment once, as
 * a `paid_payments` entry that its refunds draw on, and becomes the link's `payment`:
 * - within `max_payments` (and `MAX_PAYMENTS_PER_LINK`): `payment_link.paid`, carrying it; the one that reaches the
 *   limit moves an open link to `completed`. A link canceled or expired meanwhile keeps its status: money moved,
 *   so the payment is recorded and reported all the same;
 * - beyond the limit (buyers who paid at the same time): recorded just as well, so that it can be refunded, and
 *   reported as `payment_link.duplicate_payment` (docs/orchestration.md#duplicate-payments).
 * Either way in the same write, the payment's place (./link-places.ts) becomes its for good, or is given up.
 * `undefined` when the payment is recorded already (a repeat of the same confirmation).
 */
export function addPayment(
  link: PaymentLink,
  payment: PspPayment,
  resource: PaymentResource,
  now: Date,
): Transition | undefined {
  if (!link.reusable) return markPaid(link, payment, now, resource);
  const paid = link.paid_payments;
  if (paid[payment.id]) return undefined;
  const count = Object.keys(paid).length;
  const entry: PaidPayment = {
    ...payment,
    amount: resource.amount,
    paid_at: now.toISOString(),
    refund_reserved_minor: 0,
    refund_refunded_minor: 0,
  };
  const limit = paymentLimit(link);
  const recorded: PaymentLink = {
    ...link,
    paid_payments: { ...paid, [payment.id]: entry },
    places: placesAfterPayment(link, payment.id, count < limit, now),
  };
  if (count >= limit) {
    return withEvent(
      link,
      { ...recorded, reported_payments: [...link.reported_payments, payment.id] },
      'payment_link.duplicate_payment',
      now,
      (snapshot) => ({ ...snapshot, payment: resource }),
    );
  }
  const status = count + 1 >= limit && link.status === 'open' ? 'completed' : link.status;
  return withEvent(
    link,
    { ...recorded, payment, paid_at: now.toISOString(), status },
    'payment_link.paid',
    now,
    withBuyerInput(resource),
  );
}

/** How many payments a reusable link takes: its `max_payments`, never more than `MAX_PAYMENTS_PER_LINK`. */
export const paymentLimit = (link: Pick<PaymentLink, 'max_payments'>): number =>
  Math.min(link.max_payments ?? MAX_PAYMENTS_PER_LINK, MAX_PAYMENTS_PER_LINK);

/**
 * The succeeded payments refunds may draw on: each of a reusable link's; a single-use link's `payment`, and its
 * duplicate payments once recorded for their refunds (`duplicate_payments`).
 */
export function paidPayments(link: PaymentLink): PspPayment[] {
  if (link.reusable) return Object.values(link.paid_payments);
  return [...(link.payment ? [link.payment] : []), ...Object.values(link.duplicate_payments)];
}

/**
 * A single-use link's duplicate payment (docs/orchestration.md#duplicate-payments) as its refunds' bound, from its
 * stored payment, before its first refund: one the link reported (`payment_link.duplicate_payment`, so never the
 * link's own, nor the same PSP payment seen twice) and that is `succeeded`. Undefined for any other payment, and
 * for a duplicate already recorded (its entry keeps its totals).
 */
export function duplicateEntry(link: PaymentLink, payment: Payment): PaidPayment | undefined {
  const duplicate =
    !link.reusable &&
    link.status === 'paid' &&
    payment.link_id === link.id &&
    payment.id !== link.payment?.id &&
    payment.status === 'succeeded' &&
    link.reported_payments.includes(payment.id) &&
    link.duplicate_payments[payment.id] === undefined;
  if (!duplicate) return undefined;
  return {
    id: payment.id,
    connection_id: payment.connection_id,
    provider: payment.provider,
    reference: payment.provider_reference,
    amount: paymentAmount(payment, link),
    paid_at: payment.updated_at,
    refund_reserved_minor: 0,
    refund_refunded_minor: 0,
  };
}

/** The link with a duplicate payment recorded for its refunds (`duplicateEntry`). */
export const withDuplicate = (link: PaymentLink, entry: PaidPayment): PaymentLink => ({
  ...link,
  duplicate_payments: { ...link.duplicate_payments, [entry.id]: entry },
});

/** The succeeded payment `paymentId` of the link (see `paidPayments`), or undefined. */
export const paidPayment = (link: PaymentLink, paymentId: string): PspPayment | undefined =>
  paidPayments(link).find((payment) => payment.id === paymentId);

/**
 * The link's payment gets the PSP reference it was paid without (see `PspPayment`); one version later, no event
 * (the merchant was told of the payment; the reference is read with the link). `undefined` when it has one or
 * the link was not paid by this payment.
 */
export function withPaymentReference(
  link: PaymentLink,
  paymentId: string,
  reference: string,
): PaymentLink | undefined {
  const entry = link.paid_payments[paymentId];
  const own = link.payment?.id === paymentId && link.payment.reference === null;
  if (!own && (!entry || entry.reference !== null)) return undefined;
  const after: PaymentLink = { ...link, version: link.version + 1 };
  if (own && link.payment) after.payment = { ...link.payment, reference };
  if (entry && entry.reference === null) {
    after.paid_payments = { ...link.paid_payments, [paymentId]: { ...entry, reference } };
  }
  return after;
}
