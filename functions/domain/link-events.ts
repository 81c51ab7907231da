import type { AmountRange } from './amount.ts';
import { InvalidStateError } from './errors.ts';
import { newId } from './ids.ts';
import { type Amount, fromMinorUnits, toMinorUnits } from './money.ts';
import { type BuyerInput, buyerInputOf, type PaymentResource } from './payment.ts';
import {
  effectiveStatus,
  type LinkCommon,
  linkCurrency,
  type PaymentLink,
  type PspPayment,
  type Refund,
} from './payment-link.ts';
import { type RefundState, refundStateOf } from './payment-money.ts';
import type { Mode } from './principal.ts';

/**
 * The transitions of a link that emit an event, and the events with the snapshot of the link they carry: a
 * transition and its event are written together (`LinkRepository.commit`). A reusable link's payments:
 * ./link-payments.ts; refunds: ./refund.ts.
 */
/**
 * A link reports at most this many failed payments by webhook. Each report names its event and its payment in
 * the link's item (`event_ids`, `reported_payments`), and a link may be open for a year, a session at a time: an
 * unbounded list would take the item past DynamoDB's 400 KB, after which not even a success could be recorded.
 * Later failures are still recorded, each in its own payment item (`GET /v1/payment-links/{id}/payments`).
 */
export const MAX_REPORTED_FAILURES_PER_LINK = 500;

/**
 * The link as merchants see it (docs/api.md#paymentlink), but for `checkout_url`: the address of a web page is
 * added by the code that knows where the checkout pages are served (functions/http/api/resources.ts for responses,
 * `applyTransition` for the events that webhooks carry).
 */
export type LinkSnapshot = Pick<
  PaymentLink,
  | 'id'
  | 'mode'
  | 'status'
  | 'amount'
  | 'description'
  | 'redirect_url'
  | 'webhook_url'
  | 'metadata'
  | 'created_at'
  | 'expires_at'
  | 'paid_at'
  | 'canceled_at'
> & {
  object: 'payment_link';
  /** The succeeded payment, with what it charged (and in `payment_link.paid`, who paid: `PaidEventPayment`). */
  payment: PaidEventPayment | null;
  amount_range: (AmountRange & { suggested: string | null }) | null;
  locale: string | null;
  reusable: boolean;
  max_payments: number | null;
  /** How many payments succeeded: 0 or 1 for a single-use link. */
  succeeded_payments: number;
  /** What its succeeded payments charged, together: "0.00" (in the currency's decimals) until one succeeds. */
  amount_received: Amount;
  /** What succeeded refunds gave back: "0.00" (in the currency's decimals) until then. */
  amount_refunded: Amount;
  /** How much of `amount_received` was refunded: `none`, `partial` or `full`. */
  refund_status: RefundState;
};

export const EVENT_TYPES = [
  'payment_link.paid',
  'payment_link.canceled',
  'payment_link.expired',
  'payment_link.payment_failed',
  'payment_link.duplicate_payment',
  'refund.succeeded',
  'refund.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A link snapshot in an event: `checkout_url` is present once the event is recorded (see `LinkSnapshot`). */
export type EventLink = LinkSnapshot & { checkout_url?: string; qr_code_url?: string };

/** The `data` of a refund event: the refund, and the link it belongs to as it was right after. */
export interface RefundEventData extends Refund {
  payment_link: EventLink;
}

/**
 * The payment of a `payment_link.paid` event: the link's `payment` and what the payment knows of its buyer, which
 * the event alone carries (the link's item keeps no buyer details: docs/security.md#personal-data).
 */
export type PaidEventPayment = PspPayment & BuyerInput;

/**
 * The paid event's snapshot with what the buyer gave for its payment (`buyerInputOf`), each only when the payment
 * has it: the event of a link that uses none of it is byte for byte what it was.
 */
export const withBuyerInput =
  (payment: Parameters<typeof buyerInputOf>[0] | undefined) =>
  (snapshot: LinkSnapshot): LinkSnapshot => {
    const input = payment ? buyerInputOf(payment) : {};
    return snapshot.payment && Object.keys(input).length > 0
      ? { ...snapshot, payment: { ...snapshot.payment, ...input } }
      : snapshot;
  };

/** Events about one payment of the link carry it as `payment` (docs/webhooks.md, "Event types"). */
export type PaymentEventType = 'payment_link.payment_failed' | 'payment_link.duplicate_payment';
export type PaymentEventData = Omit<EventLink, 'payment'> & { payment: PaymentResource };

/**
 * A webhook event: created in the same write as the transition it reports, so neither exists without the
 * other. `data` is the resource as it was right after the transition.
 */
export interface LinkEvent {
  id: string;
  type: EventType;
  link_id: string;
  account: string;
  mode: Mode;
  created_at: string;
  /**
   * The link (`payment_link.*`; for the payment events with `payment` set to the payment they are about), or
   * the refund with its link (`refund.*`).
   */
  data: EventLink | PaymentEventData | RefundEventData;
}

/** The link an event concerns, as it was right after the event: its webhook goes to that link's `webhook_url`. */
export const eventLink = (event: Pick<LinkEvent, 'data'>): EventLink | PaymentEventData =>
  'payment_link' in event.data ? event.data.payment_link : event.data;

/** A transition and the event it emits: what a repository writes atomically. */
export interface Transition {
  before: PaymentLink;
  after: PaymentLink;
  event: LinkEvent;
}

/**
 * What the link's succeeded payments charged, in minor units: those it records (a reusable link's `paid_payments`,
 * a single-use link's `payment`), which its refunds draw on. A single-use link's duplicate payment is not one of
 * them: it is its own payment, listed in the books (docs/orchestration.md#duplicate-payments).
 */
function receivedMinor(link: PaymentLink): bigint {
  const paid = link.reusable ? Object.values(link.paid_payments) : link.payment ? [link.payment] : [];
  return paid.reduce((sum, payment) => sum + toMinorUnits(payment.amount), 0n);
}

export function snapshotOf(link: PaymentLink, now: Date): LinkSnapshot {
  const currency = linkCurrency(link);
  const received = receivedMinor(link);
  return {
    id: link.id,
    object: 'payment_link',
    mode: link.mode,
    status: effectiveStatus(link, now),
    amount: link.amount,
    amount_range: link.amount_range
      ? { ...link.amount_range, suggested: link.amount_range.suggested ?? null }
      : null,
    description: link.description,
    redirect_url: link.redirect_url,
    webhook_url: link.webhook_url,
    metadata: link.metadata,
    locale: link.locale,
    reusable: link.reusable,
    max_payments: link.max_payments,
    succeeded_payments: link.reusable
      ? Object.keys(link.paid_payments).length
      : link.payment === null
        ? 0
        : 1,
    created_at: link.created_at,
    expires_at: link.expires_at,
    paid_at: link.paid_at,
    canceled_at: link.canceled_at,
    payment: link.payment,
    amount_received: { value: fromMinorUnits(received, currency), currency },
    amount_refunded: { value: fromMinorUnits(BigInt(link.refund_refunded_minor), currency), currency },
    refund_status: refundStateOf(received, BigInt(link.refund_refunded_minor)),
  };
}

function transition(
  before: PaymentLink,
  changes: Partial<LinkCommon>,
  type: EventType,
  now: Date,
): Transition {
  return withEvent(before, { ...before, ...changes }, type, now, (snapshot) => snapshot);
}

/**
 * A change of `before` into `after` that emits an event of `type`: the event names the link as it is after the
 * change (`data` may wrap it: a refund event carries the refund with the link inside), and the link names the
 * event and moves one version on, so both are written together by `LinkRepository.commit`.
 */
export function withEvent(
  before: PaymentLink,
  after: PaymentLink,
  type: EventType,
  now: Date,
  data: (snapshot: LinkSnapshot) => LinkEvent['data'],
): Transition {
  const id = newId('evt');
  const committed: PaymentLink = {
    ...after,
    event_ids: [...before.event_ids, id],
    version: before.version + 1,
  };
  const event: LinkEvent = {
    id,
    type,
    link_id: committed.id,
    account: committed.account,
    mode: committed.mode,
    created_at: now.toISOString(),
    data: data(snapshotOf(committed, now)),
  };
  return { before, after: committed, event };
}

/**
 * Tells the merchant about one payment: a failed attempt on an open link (`payment_failed`; the link drops the
 * attempt's session, so the next visit opens a fresh one), or a second succeeded payment on a paid link
 * (`duplicate_payment`, so that they can refund it). Once per payment; `undefined` when already reported or
 * when it does not apply (a failure after the link stopped being open, a "duplicate" that is the link's own).
 * A success at another amount than the payment's (`amount_mismatch`) moved money whatever the link's status: it
 * is reported on a link that is no longer open too.
 */
export function reportPayment(
  link: PaymentLink,
  type: PaymentEventType,
  payment: PaymentResource,
  now: Date,
): Transition | undefined {
  const reported = link.reported_payments;
  if (reported.includes(payment.id)) return undefined;
  if (
    type === 'payment_link.payment_failed' &&
    ((effectiveStatus(link, now) !== 'open' && payment.failure?.code !== 'amount_mismatch') ||
      reported.length >= MAX_REPORTED_FAILURES_PER_LINK)
  ) {
    return undefined;
  }
  if (
    type === 'payment_link.duplicate_payment' &&
    (link.status !== 'paid' ||
      link.payment?.id === payment.id ||
      (payment.provider_reference !== null && link.payment?.reference === payment.provider_reference))
  ) {
    return undefined;
  }
  const session = link.psp_session?.payment_id === payment.id ? null : link.psp_session;
  // The buyer's details travel in `payment_link.paid` only: with a routing decision beside them, these events would
  // pass their size bound (docs/webhooks.md#the-request); `GET .../payments` has them.
  const { buyer: _buyer, ...withoutBuyer } = payment;
  return withEvent(
    link,
    { ...link, reported_payments: [...reported, payment.id], psp_session: session },
    type,
    now,
    (snapshot) => ({ ...snapshot, payment: withoutBuyer }),
  );
}

/**
 * The PSP confirmed a payment of a single-use link (a reusable one: `addPayment`). Money moved, so the truth wins: a link canceled or expired meanwhile is recorded
 * as paid too (docs/api.md#states-expiry-and-webhooks). On a link that is already paid nothing changes (`undefined`): a repeat of
 * the same confirmation, or a second payment, which the caller reports (the first payment stays the link's).
 */
export function markPaid(
  link: PaymentLink,
  payment: PspPayment,
  now: Date,
  input?: Parameters<typeof buyerInputOf>[0],
): Transition | undefined {
  if (link.status === 'paid' || link.reusable) return undefined;
  return withEvent(
    link,
    { ...link, status: 'paid', paid_at: now.toISOString(), payment, psp_session: null },
    'payment_link.paid',
    now,
    withBuyerInput(input),
  );
}

/**
 * The merchant cancels. Cancelling a canceled link changes nothing (`undefined`), nor does cancelling a completed
 * one, which stays completed: it took all its payments, and the cancel only ends the sessions other buyers still
 * have open (`cancelPaymentLink`). Paid or expired is a 409.
 */
export function cancel(link: PaymentLink, now: Date): Transition | undefined {
  const status = effectiveStatus(link, now);
  if (status === 'canceled' || status === 'completed') return undefined;
  if (status !== 'open') throw new InvalidStateError(`A ${status} payment link cannot be canceled.`);
  return transition(
    link,
    { status: 'canceled', canceled_at: now.toISOString(), psp_session: null },
    'payment_link.canceled',
    now,
  );
}

/** Records the expiry of an open link whose `expires_at` has passed; anything else changes nothing. */
export function expire(link: PaymentLink, now: Date): Transition | undefined {
  if (link.status !== 'open' || effectiveStatus(link, now) !== 'expired') return undefined;
  return transition(
    link,
    { status: 'expired', expired_at: now.toISOString(), psp_session: null },
    'payment_link.expired',
    now,
  );
}
