import { type AmountRange, type AmountSource, type LineItem, lineItemsTotal } from './amount.ts';
import type { Provider } from './connection.ts';
import { InvalidStateError } from './errors.ts';
import { newId } from './ids.ts';
import { type Amount, fromMinorUnits } from './money.ts';
import type { PaymentResource } from './payment.ts';
import type { PaymentMethod } from './payment-methods.ts';
import type { Mode, Principal } from './principal.ts';

/**
 * `paid` ends a single-use link; `completed` ends a reusable one that took its `max_payments` (docs/api.md#reusable-links).
 */
export const LINK_STATUSES = ['open', 'paid', 'completed', 'canceled', 'expired'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/**
 * The succeeded payment of a paid link: our payment, its connection, and the PSP's own reference. The reference
 * is null while a PSP that confirmed the payment has not yet said it (Adyen: its link reads paid before its
 * AUTHORISATION arrives); it is filled in then (docs/orchestration.md#adyen).
 */
export interface PspPayment {
  id: string;
  connection_id: string;
  provider: Provider;
  reference: string | null;
  /**
   * What the payment charged (`Payment.amount`); absent on links paid before it was kept, which were paid their
   * fixed `amount`: read it with `paidAmount`.
   */
  amount?: Amount;
}

/**
 * A reusable link takes at most this many payments, `max_payments` or not: each one is an entry of the link's
 * own item (its refund totals), which must stay far below DynamoDB's 400 KB (docs/api.md#reusable-links).
 */
export const MAX_PAYMENTS_PER_LINK = 500;

/**
 * A link reports at most this many failed payments by webhook. Each report names its event and its payment in
 * the link's item (`event_ids`, `reported_payments`), and a link may be open for a year, a session at a time: an
 * unbounded list would take the item past DynamoDB's 400 KB, after which not even a success could be recorded.
 * Later failures are still recorded, each in its own payment item (`GET /v1/payment-links/{id}/payments`).
 */
export const MAX_REPORTED_FAILURES_PER_LINK = 500;

/**
 * A succeeded payment of a reusable link, kept in the link's item with its own refund totals (minor units, as
 * `refund_reserved_minor`/`refund_refunded_minor` are for the link), so that a refund reservation is one write
 * conditioned on what remains of that payment (docs/webhooks.md#refunds).
 */
export interface PaidPayment extends PspPayment {
  /** What the payment charged (its session's amount): the most its refunds may give back. */
  amount: Amount;
  paid_at: string;
  refund_reserved_minor: number;
  refund_refunded_minor: number;
}

/** The PSP checkout session currently serving a link (reused while valid); at most one is open at a time. */
export interface PspSession {
  provider: Provider;
  connection_id: string;
  /** Our payment that the session is the attempt of. */
  payment_id: string;
  /** The PSP's session / payment id. */
  id: string;
  /** The hosted checkout page. */
  url: string;
  expires_at: string;
  /**
   * What the session charges, as its payment records it (absent on sessions stored before it was kept, which were
   * at the link's amount: read it with `paymentAmount`, functions/domain/payment.ts).
   */
  amount?: Amount;
}

/** What the merchant may set when creating a link (already validated). */
export interface PaymentLinkInput {
  /** The fixed amount; absent when `line_items` or `amount_range` give it (functions/domain/amount.ts). */
  amount?: Amount | undefined;
  line_items?: LineItem[] | null | undefined;
  /** The buyer chooses the amount within it (docs/checkout.md#buyer-chosen-amounts). */
  amount_range?: AmountRange | null | undefined;
  payment_methods?: PaymentMethod[] | null | undefined;
  description?: string | null | undefined;
  redirect_url?: string | null | undefined;
  webhook_url?: string | null | undefined;
  metadata?: Record<string, string> | null | undefined;
  expires_at?: string | null | undefined;
  /** Connections that serve this link, in order, instead of the routing (docs/orchestration.md#routing). */
  connections?: string[] | null | undefined;
  /** The language of the buyer's pages and of the PSP's page (functions/domain/locale.ts); else the buyer's. */
  locale?: string | null | undefined;
  /** Takes a payment from every buyer until canceled, expired or `max_payments` (docs/api.md#reusable-links). */
  reusable?: boolean | undefined;
  max_payments?: number | null | undefined;
}

/**
 * What the merchant may change on an open link (`PATCH`): a field that is present replaces the stored value
 * (`null` clears it; `metadata` is replaced whole); an absent field stays as it is. Amount and currency never
 * change: a buyer may already be looking at them.
 */
export type PaymentLinkChanges = Partial<
  Pick<
    PaymentLinkInput,
    'description' | 'redirect_url' | 'webhook_url' | 'metadata' | 'expires_at' | 'locale'
  >
>;

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** A refund of a paid link, as stored on the link and shown to the merchant (rules: functions/domain/refund.ts). */
export interface Refund {
  id: string;
  object: 'refund';
  payment_link_id: string;
  /** The payment refunded. */
  payment_id: string;
  status: RefundStatus;
  amount: Amount;
  failure: { code: string; message: string } | null;
  /** The PSP's own id of the refund, once it answered. */
  provider_reference: string | null;
  created_at: string;
  updated_at: string;
}

/** The stored payment link. Field names are those of the public resource, so no mapping layer is needed. */
export interface PaymentLink {
  id: string;
  account: string;
  mode: Mode;
  status: LinkStatus;
  /** The fixed amount, or the lines' sum; null when the buyer chooses it (`amount_range`). */
  amount: Amount | null;
  description: string | null;
  redirect_url: string | null;
  webhook_url: string | null;
  metadata: Record<string, string> | null;
  /** The order's lines, whose sum is `amount` (absent or null: a fixed amount). */
  line_items?: LineItem[] | null;
  /** The bounds of a buyer-chosen amount (absent or null: `amount` is fixed). */
  amount_range?: AmountRange | null;
  /** The methods the buyer may pay with (absent or null: any the PSP offers). */
  payment_methods?: PaymentMethod[] | null;
  /** Absent on links created before languages existed: read as null. */
  locale?: string | null;
  /**
   * A reusable link takes one payment per buyer until it is canceled, expires or has `max_payments` (then it is
   * `completed`); absent: single-use. Its `payment` is the latest succeeded payment, and `paid_payments` holds
   * each one with its refund totals, by payment id.
   */
  reusable?: boolean;
  max_payments?: number | null;
  paid_payments?: Record<string, PaidPayment>;
  /**
   * A reusable link's buyers' sessions opened before this time show what the merchant changed since (`update`):
   * each is ended when its buyer comes back, as a single-use link's session is when the link drops it.
   */
  sessions_stale_before?: string;
  created_at: string;
  expires_at: string | null;
  paid_at: string | null;
  canceled_at: string | null;
  expired_at: string | null;
  payment: PspPayment | null;
  psp_session: PspSession | null;
  /** The link's own ordered connections (absent on links created before routing existed). */
  connections?: string[] | null;
  /**
   * Payments whose failure or duplicate success was already reported by a webhook: each is reported once,
   * however often the PSP repeats itself (absent until the first).
   */
  reported_payments?: string[];
  /** Refunds of the paid link, oldest first, in the link's own item (docs/webhooks.md#refunds); absent until the first. */
  refunds?: Refund[];
  /**
   * Refund bookkeeping in minor units of the link's currency, absent (0) until the first refund: `reserved`
   * counts every pending or succeeded refund (what can no longer be refunded), `refunded` the succeeded ones.
   * Plain numbers, so that a reservation is one atomic `ADD` (12 integer digits and 3 decimals stay exact).
   */
  refund_reserved_minor?: number;
  refund_refunded_minor?: number;
  /**
   * While a refund may be pending: when the sweeper next asks the PSPs about the link's pending refunds, and how
   * often it has asked since the last refund was requested (docs/webhooks.md#refunds). Null or absent otherwise.
   */
  refund_check_at?: string | null;
  refund_checks?: number;
  /**
   * Ids of the events this link's transitions emitted. An event counts only once its link names it: the
   * repository writes the event first and then the link (conditionally), so a crash or a lost race between
   * the two leaves an orphan event that is never delivered, and a committed transition always has its event.
   */
  event_ids: string[];
  /** Optimistic-concurrency counter: every transition is a write conditional on it. */
  version: number;
}

/**
 * The link as merchants see it (docs/api.md#paymentlink), but for `checkout_url`: the address of a web page is
 * added by the code that knows where the checkout pages are served (functions/http/resources.ts for responses,
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
  /** The succeeded payment with what it charged (`paidAmount`). */
  payment: (PspPayment & { amount: Amount }) | null;
  amount_range: (AmountRange & { suggested: string | null }) | null;
  locale: string | null;
  reusable: boolean;
  max_payments: number | null;
  /** How many payments succeeded: 0 or 1 for a single-use link. */
  succeeded_payments: number;
  /** What succeeded refunds gave back: "0.00" (in the currency's decimals) until then. */
  amount_refunded: Amount;
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

/** Where a new link's amount comes from (docs/api.md#amounts): fixed, the lines' sum, or the buyer's range. */
function amountFieldsOf(
  input: PaymentLinkInput,
): Pick<PaymentLink, 'amount' | 'line_items' | 'amount_range'> {
  if (input.amount) return { amount: { value: input.amount.value, currency: input.amount.currency } };
  if (input.line_items?.length) {
    return { amount: lineItemsTotal(input.line_items), line_items: input.line_items };
  }
  const range = input.amount_range;
  if (!range) return { amount: null };
  return {
    amount: null,
    amount_range: {
      currency: range.currency,
      minimum: range.minimum,
      maximum: range.maximum,
      suggested: range.suggested ?? null,
    },
  };
}

export function newPaymentLink(principal: Principal, input: PaymentLinkInput, now: Date): PaymentLink {
  return {
    id: newId('pl'),
    account: principal.account,
    mode: principal.mode,
    status: 'open',
    ...amountFieldsOf(input),
    ...(input.payment_methods?.length ? { payment_methods: input.payment_methods } : {}),
    description: input.description ?? null,
    redirect_url: input.redirect_url ?? null,
    webhook_url: input.webhook_url ?? null,
    metadata: input.metadata ?? null,
    locale: input.locale ?? null,
    ...(input.reusable
      ? { reusable: true, max_payments: input.max_payments ?? null, paid_payments: {} }
      : {}),
    ...(input.connections?.length ? { connections: input.connections } : {}),
    created_at: now.toISOString(),
    expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    paid_at: null,
    canceled_at: null,
    expired_at: null,
    payment: null,
    psp_session: null,
    event_ids: [],
    version: 1,
  };
}

/** An open link whose `expires_at` has passed reads as expired at once, before the sweeper records it. */
export function effectiveStatus(link: PaymentLink, now: Date): LinkStatus {
  if (link.status === 'open' && link.expires_at !== null && Date.parse(link.expires_at) <= now.getTime()) {
    return 'expired';
  }
  return link.status;
}

export function snapshotOf(link: PaymentLink, now: Date): LinkSnapshot {
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
    locale: link.locale ?? null,
    reusable: link.reusable === true,
    max_payments: link.max_payments ?? null,
    succeeded_payments: link.reusable
      ? Object.keys(link.paid_payments ?? {}).length
      : link.payment === null
        ? 0
        : 1,
    created_at: link.created_at,
    expires_at: link.expires_at,
    paid_at: link.paid_at,
    canceled_at: link.canceled_at,
    payment: link.payment && { ...link.payment, amount: paidAmount(link, link.payment) },
    amount_refunded: {
      value: fromMinorUnits(BigInt(link.refund_refunded_minor ?? 0), linkCurrency(link)),
      currency: linkCurrency(link),
    },
  };
}

function transition(
  before: PaymentLink,
  changes: Partial<PaymentLink>,
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
 */
export function reportPayment(
  link: PaymentLink,
  type: PaymentEventType,
  payment: PaymentResource,
  now: Date,
): Transition | undefined {
  const reported = link.reported_payments ?? [];
  if (reported.includes(payment.id)) return undefined;
  if (
    type === 'payment_link.payment_failed' &&
    (effectiveStatus(link, now) !== 'open' || reported.length >= MAX_REPORTED_FAILURES_PER_LINK)
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
  return withEvent(
    link,
    { ...link, reported_payments: [...reported, payment.id], psp_session: session },
    type,
    now,
    (snapshot) => ({ ...snapshot, payment }),
  );
}

/**
 * The PSP confirmed a payment of a single-use link (a reusable one: `addPayment`). Money moved, so the truth wins: a link canceled or expired meanwhile is recorded
 * as paid too (docs/api.md#states-expiry-and-webhooks). On a link that is already paid nothing changes (`undefined`): a repeat of
 * the same confirmation, or a second payment, which the caller reports (the first payment stays the link's).
 */
export function markPaid(link: PaymentLink, payment: PspPayment, now: Date): Transition | undefined {
  if (link.status === 'paid' || link.reusable) return undefined;
  return transition(
    link,
    { status: 'paid', paid_at: now.toISOString(), payment, psp_session: null },
    'payment_link.paid',
    now,
  );
}

/**
 * The PSP confirmed a payment of a reusable link (docs/api.md#reusable-links). Each payment is recorded once, as
 * a `paid_payments` entry that its refunds draw on, and becomes the link's `payment`:
 * - within `max_payments` (and `MAX_PAYMENTS_PER_LINK`): `payment_link.paid`, carrying it; the one that reaches the
 *   limit moves an open link to `completed`. A link canceled or expired meanwhile keeps its status: money moved,
 *   so the payment is recorded and reported all the same;
 * - beyond the limit (buyers who paid at the same time): recorded just as well, so that it can be refunded, and
 *   reported as `payment_link.duplicate_payment` (docs/orchestration.md#duplicate-payments).
 * `undefined` when the payment is recorded already (a repeat of the same confirmation).
 */
export function addPayment(
  link: PaymentLink,
  payment: PspPayment,
  resource: PaymentResource,
  now: Date,
): Transition | undefined {
  const paid = link.paid_payments ?? {};
  if (paid[payment.id]) return undefined;
  const count = Object.keys(paid).length;
  const entry: PaidPayment = {
    ...payment,
    amount: resource.amount,
    paid_at: now.toISOString(),
    refund_reserved_minor: 0,
    refund_refunded_minor: 0,
  };
  const recorded: PaymentLink = { ...link, paid_payments: { ...paid, [payment.id]: entry } };
  const limit = paymentLimit(link);
  if (count >= limit) {
    return withEvent(
      link,
      { ...recorded, reported_payments: [...(link.reported_payments ?? []), payment.id] },
      'payment_link.duplicate_payment',
      now,
      (snapshot) => ({ ...snapshot, payment: resource }),
    );
  }
  return transition(
    link,
    {
      paid_payments: recorded.paid_payments,
      payment,
      paid_at: now.toISOString(),
      status: count + 1 >= limit && link.status === 'open' ? 'completed' : link.status,
    },
    'payment_link.paid',
    now,
  );
}

/** How many payments a reusable link takes: its `max_payments`, never more than `MAX_PAYMENTS_PER_LINK`. */
export const paymentLimit = (link: Pick<PaymentLink, 'max_payments'>): number =>
  Math.min(link.max_payments ?? MAX_PAYMENTS_PER_LINK, MAX_PAYMENTS_PER_LINK);

/**
 * The succeeded payments refunds may draw on: a single-use link's `payment`, or each of a reusable link's.
 */
export function paidPayments(link: PaymentLink): PspPayment[] {
  if (link.reusable) return Object.values(link.paid_payments ?? {});
  return link.payment ? [link.payment] : [];
}

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
  const entry = link.paid_payments?.[paymentId];
  const own = link.payment?.id === paymentId && link.payment.reference === null;
  if (!own && (!entry || entry.reference !== null)) return undefined;
  const after: PaymentLink = { ...link, version: link.version + 1 };
  if (own && link.payment) after.payment = { ...link.payment, reference };
  if (entry && entry.reference === null) {
    after.paid_payments = { ...link.paid_payments, [paymentId]: { ...entry, reference } };
  }
  return after;
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

/** Fields the buyer sees on the PSP's page or is sent back to: changing one ends the link's PSP session. */
const BUYER_FACING_FIELDS = ['description', 'redirect_url', 'expires_at', 'locale'] as const;

/**
 * The merchant corrects an open link (docs/api.md, "Updating a link"). Only an open link changes (paid,
 * canceled or expired: `invalid_state`, so an expiry that has passed is never undone by moving `expires_at`).
 * The result is one version later, so the write that stores it fails when a transition got there first. When
 * what the buyer sees changes, the link drops its PSP session: the caller ends it at the PSP and the next
 * checkout visit opens a fresh one.
 */
export function update(link: PaymentLink, changes: PaymentLinkChanges, now: Date): PaymentLink {
  const status = effectiveStatus(link, now);
  if (status !== 'open') throw new InvalidStateError(`A ${status} payment link cannot be updated.`);
  const after: PaymentLink = { ...link, version: link.version + 1 };
  if (changes.description !== undefined) after.description = changes.description;
  if (changes.redirect_url !== undefined) after.redirect_url = changes.redirect_url;
  if (changes.webhook_url !== undefined) after.webhook_url = changes.webhook_url;
  if (changes.metadata !== undefined) after.metadata = changes.metadata;
  if (changes.locale !== undefined) after.locale = changes.locale;
  if (changes.expires_at !== undefined) {
    after.expires_at = changes.expires_at === null ? null : new Date(changes.expires_at).toISOString();
  }
  if (BUYER_FACING_FIELDS.some((field) => after[field] !== link[field])) {
    after.psp_session = null;
    if (link.reusable) after.sessions_stale_before = now.toISOString();
  }
  return after;
}

/** Where the link's amount comes from (functions/domain/amount.ts): the buyer's range, its lines, or the fixed amount. */
export function amountSourceOf(
  link: Pick<PaymentLink, 'amount' | 'line_items' | 'amount_range'>,
): AmountSource {
  if (link.amount_range) return { type: 'range', range: link.amount_range };
  if (!link.amount) throw new Error('A payment link without an amount or an amount range.');
  return link.line_items?.length
    ? { type: 'line_items', amount: link.amount, line_items: link.line_items }
    : { type: 'fixed', amount: link.amount };
}

/** The currency the link is paid in: its amount's, or its range's. */
export function linkCurrency(link: Pick<PaymentLink, 'amount' | 'amount_range'>): string {
  const currency = link.amount?.currency ?? link.amount_range?.currency;
  if (!currency) throw new Error('A payment link without an amount or an amount range.');
  return currency;
}

/**
 * What the link's succeeded payment charged: its own amount (a buyer-chosen one, for a range link), or, on a link
 * paid before payments kept it, the link's fixed amount. Refunds are bounded by it (functions/domain/refund.ts).
 */
export function paidAmount(link: Pick<PaymentLink, 'amount'>, payment: Pick<PspPayment, 'amount'>): Amount {
  const amount = payment.amount ?? link.amount;
  if (!amount) throw new Error('A paid payment without an amount.');
  return amount;
}
