import { type AmountRange, type AmountSource, type LineItem, lineItemsTotal } from './amount.ts';
import type { Collect } from './buyer.ts';
import type { Provider } from './connection.ts';
import { type CustomField, type CustomFieldInput, customFieldOf } from './custom-fields.ts';
import { InvalidStateError } from './errors.ts';
import { newId } from './ids.ts';
import type { Amount } from './money.ts';
import type { PaymentMethod } from './payment-methods.ts';
import type { Mode, Principal } from './principal.ts';
import { type Recurring, type RecurringInput, recurringOf } from './subscription-schedule.ts';

/**
 * `paid` ends a single-use link; `completed` ends a reusable one that took its `max_payments` (docs/api.md#reusable-links).
 */
export const LINK_STATUSES = ['open', 'paid', 'completed', 'canceled', 'expired'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/**
 * The succeeded payment of a paid link: our payment, its connection, and the PSP's own reference. The reference
 * is null while a PSP that confirmed the payment has not yet said it (its page may read paid before the
 * notification that carries the reference arrives); it is filled in then
 * (docs/orchestration.md#a-success-before-its-reference).
 */
export interface PspPayment {
  id: string;
  connection_id: string;
  provider: Provider;
  reference: string | null;
  /**
   * What the payment charged (`Payment.amount`); a link paid before it was kept reads as paid its fixed `amount`
   * (functions/adapters/dynamodb/link-mapper.ts).
   */
  amount: Amount;
}

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
   * What the session charges, as its payment records it: always on the link's `psp_session` (`LinkSession`);
   * absent on a session as a PSP adapter returns it, or rebuilt from its payment (read it with `paymentAmount`).
   */
  amount?: Amount;
}

/**
 * A place of a reusable link with `max_payments` (functions/domain/link-places.ts): who holds it and until when.
 */
export interface LinkPlace {
  /** The opening that took it (its token), then the payment of the session it opened. */
  holder: string;
  /** When it lapses: the opening's end, then its session's expiry; null for good, once its payment succeeded. */
  until: string | null;
}

/**
 * The session stored on a link, with what it charges (one stored before it was kept reads as at the link's
 * amount: functions/adapters/dynamodb/link-mapper.ts).
 */
export type LinkSession = PspSession & { amount: Amount };

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
  /** The buyer details to ask for (docs/checkout.md#buyer-details). */
  collect?: Collect | null | undefined;
  /** The merchant's own questions, asked on our page (docs/checkout.md#custom-fields). */
  custom_fields?: CustomFieldInput[] | null | undefined;
  /** A subscription link: its payment opens a mandate and starts a subscription (docs/subscriptions.md). */
  recurring?: RecurringInput | null | undefined;
  /** Made by us for a subscription's unpaid period (its update link); never set by a merchant. */
  subscription_update?: SubscriptionUpdate | null | undefined;
}

/** The period of a subscription an update link collects (docs/subscriptions.md#update-links). */
export interface SubscriptionUpdate {
  subscription_id: string;
  period: number;
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
/**
 * Why a refund is made, as the merchant says it (the console's list, in the words the card networks' PSPs use):
 * `other` with a text of the merchant's own in `reason_detail`.
 */
export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent', 'other'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

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
  /** Why it was made, when the merchant said (absent on refunds made without one, and before reasons existed). */
  reason?: RefundReason;
  /** The merchant's own words on the reason, if any (always with `other`). */
  reason_detail?: string;
  created_at: string;
  updated_at: string;
}

/**
 * The payment link: one link type, whose kinds are two discriminated unions (docs/api.md#amounts,
 * docs/api.md#reusable-links): where its amount comes from (`AmountSource`, by `amount_kind`) and whether it is
 * single-use or reusable (`LinkUse`, by `reusable`). Field names are those of the public resource; items stored
 * before a field existed are read with its default by functions/adapters/dynamodb/link-mapper.ts, so every field
 * is here.
 */
export type PaymentLink = LinkCommon & AmountSource & LinkUse;

/**
 * A single-use link takes one payment, its `payment`. A reusable link takes one payment per buyer until it is
 * canceled, expires or has `max_payments` (then it is `completed`); its `payment` is the latest succeeded payment,
 * and `paid_payments` holds each one with its refund totals, by payment id.
 */
export type LinkUse =
  | { reusable: false; max_payments: null; paid_payments: Record<string, never> }
  | { reusable: true; max_payments: number | null; paid_payments: Record<string, PaidPayment> };

/** What every payment link has, whatever its kinds. */
export interface LinkCommon {
  id: string;
  account: string;
  mode: Mode;
  status: LinkStatus;
  description: string | null;
  redirect_url: string | null;
  webhook_url: string | null;
  metadata: Record<string, string> | null;
  /** The methods the buyer may pay with (null: any the PSP offers). */
  payment_methods: PaymentMethod[] | null;
  /** The language of the buyer's pages (null: the buyer's). */
  locale: string | null;
  /** The buyer details asked for (null: none beyond what the PSP asks anyway). */
  collect: Collect | null;
  /** The merchant's own questions to the buyer (null: none). */
  custom_fields: CustomField[] | null;
  /**
   * A reusable link's buyers' sessions opened before this time show what the merchant changed since (`update`):
   * each is ended when its buyer comes back, as a single-use link's session is when the link drops it.
   */
  sessions_stale_before: string | null;
  created_at: string;
  expires_at: string | null;
  paid_at: string | null;
  canceled_at: string | null;
  expired_at: string | null;
  payment: PspPayment | null;
  psp_session: LinkSession | null;
  /** The link's own ordered connections, instead of the routing (null: the routing's). */
  connections: string[] | null;
  /**
   * A reusable link with `max_payments`: its places, by number from 0 to `max_payments - 1`, each held by one
   * buyer (functions/domain/link-places.ts); a place not listed is free. Empty on every other link.
   */
  places: Record<string, LinkPlace>;
  /**
   * Payments whose failure or duplicate success was already reported by a webhook: each is reported once,
   * however often the PSP repeats itself.
   */
  reported_payments: string[];
  /** Refunds of the paid link, oldest first, in the link's own item (docs/webhooks.md#refunds). */
  refunds: Refund[];
  /**
   * Refund bookkeeping in minor units of the link's currency, 0 until the first refund: `reserved` counts every
   * pending or succeeded refund (what can no longer be refunded), `refunded` the succeeded ones. Plain numbers,
   * so that a reservation is one atomic `ADD` (12 integer digits and 3 decimals stay exact).
   */
  refund_reserved_minor: number;
  refund_refunded_minor: number;
  /** A single-use link's refunded duplicate payments, whose totals are apart from the link's above. */
  duplicate_payments: Record<string, PaidPayment>;
  /**
   * While a refund may be pending: when the sweeper next asks the PSPs about the link's pending refunds, and how
   * often it has asked since the last refund was requested (docs/webhooks.md#refunds). Null and 0 otherwise.
   */
  refund_check_at: string | null;
  refund_checks: number;
  /**
   * Ids of the events this link's transitions emitted. An event counts only once its link names it: the
   * repository writes the event first and then the link (conditionally), so a crash or a lost race between
   * the two leaves an orphan event that is never delivered, and a committed transition always has its event.
   */
  event_ids: string[];
  /** Optimistic-concurrency counter: every transition is a write conditional on it. */
  version: number;
  /**
   * Created with an `Idempotency-Key`: the fingerprint of that request (method, path, canonical body), so that a
   * retry replays the link and a different request with the key is refused (docs/api.md#idempotency). Null
   * without a key.
   */
  request_hash: string | null;
  /** A keyed link's first PATCH keeps here what it replaced, so a replay still answers the link as created. */
  created_as: PatchableFields | null;
  /**
   * Every payment of the link has a time-ordered id (`newPaymentId`), so a checkout visit reads only the recent
   * ones (docs/data-model.md#payments-in-creation-order): reusable links created since 2026-11-28.
   */
  payments_in_order: boolean;
  /** A subscription link's terms (docs/subscriptions.md); null on every other link. */
  recurring: Recurring | null;
  /** An update link's subscription and period (docs/subscriptions.md#update-links); null on every other link. */
  subscription_update: SubscriptionUpdate | null;
}

/** What a PATCH may change (`PaymentLinkChanges`), as stored. */
export type PatchableFields = Pick<
  LinkCommon,
  'description' | 'redirect_url' | 'webhook_url' | 'metadata' | 'expires_at' | 'locale'
>;

/** Where a new link's amount comes from (docs/api.md#amounts): fixed, the lines' sum, or the buyer's range. */
function amountSourceOf(input: PaymentLinkInput): AmountSource {
  if (input.amount) {
    const amount = { value: input.amount.value, currency: input.amount.currency };
    return { amount_kind: 'fixed', amount, line_items: null, amount_range: null };
  }
  if (input.line_items?.length) {
    const amount = lineItemsTotal(input.line_items);
    return { amount_kind: 'line_items', amount, line_items: input.line_items, amount_range: null };
  }
  const range = input.amount_range;
  if (!range) throw new Error('A payment link needs an amount, line items or an amount range.');
  return {
    amount_kind: 'range',
    amount: null,
    line_items: null,
    amount_range: {
      currency: range.currency,
      minimum: range.minimum,
      maximum: range.maximum,
      suggested: range.suggested ?? null,
    },
  };
}

/** A link's reports and refund bookkeeping before its first reported payment or refund (fresh lists each call). */
export const noReportsOrRefunds = () => ({
  reported_payments: [] as string[],
  refunds: [] as Refund[],
  refund_reserved_minor: 0,
  refund_refunded_minor: 0,
  duplicate_payments: {} as Record<string, PaidPayment>,
  refund_check_at: null,
  refund_checks: 0,
});

/**
 * A new open link. `keyed`: the id derived from the request's `Idempotency-Key` and that request's fingerprint
 * (functions/use-cases/keyed-creates.ts); without it, a random id.
 */
export function newPaymentLink(
  principal: Principal,
  input: PaymentLinkInput,
  now: Date,
  keyed?: { id: string; request_hash: string },
): PaymentLink {
  return {
    id: keyed?.id ?? newId('pl'),
    account: principal.account,
    mode: principal.mode,
    ...amountSourceOf(input),
    payment_methods: input.payment_methods?.length ? input.payment_methods : null,
    description: input.description ?? null,
    redirect_url: input.redirect_url ?? null,
    webhook_url: input.webhook_url ?? null,
    metadata: input.metadata ?? null,
    locale: input.locale ?? null,
    collect: input.collect && Object.keys(input.collect).length > 0 ? input.collect : null,
    custom_fields: input.custom_fields?.length ? input.custom_fields.map(customFieldOf) : null,
    ...useOf(input),
    connections: input.connections?.length ? input.connections : null,
    created_at: now.toISOString(),
    expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    ...lifeNotStarted(),
    request_hash: keyed?.request_hash ?? null,
    created_as: null,
    // Only a reusable link reads its payments by time; a single-use link's item stays as it was.
    payments_in_order: input.reusable === true,
    recurring: input.recurring ? recurringOf(input.recurring) : null,
    subscription_update: input.subscription_update ?? null,
  };
}

/** What a link's life changes, as it is when the link is created. */
const lifeNotStarted = () => ({
  status: 'open' as const,
  sessions_stale_before: null,
  paid_at: null,
  canceled_at: null,
  expired_at: null,
  payment: null,
  psp_session: null,
  places: {},
  ...noReportsOrRefunds(),
  event_ids: [] as string[],
  version: 1,
});

/**
 * The link as it was created, whatever happened to it since: what a replay of its creation answers. Only the
 * life's fields and what a PATCH changes (kept in `created_as`) ever change; the rest is as created.
 */
export function asCreated(link: PaymentLink): PaymentLink {
  return {
    ...link,
    ...link.created_as,
    ...lifeNotStarted(),
    ...(link.reusable ? { paid_payments: {} } : {}),
  };
}

function useOf(input: PaymentLinkInput): LinkUse {
  return input.reusable
    ? { reusable: true, max_payments: input.max_payments ?? null, paid_payments: {} }
    : { reusable: false, max_payments: null, paid_payments: {} };
}

/** An open link whose `expires_at` has passed reads as expired at once, before the sweeper records it. */
export function effectiveStatus(link: PaymentLink, now: Date): LinkStatus {
  if (link.status === 'open' && link.expires_at !== null && Date.parse(link.expires_at) <= now.getTime()) {
    return 'expired';
  }
  return link.status;
}

/** What a listing of links keeps (docs/api.md#pagination): filters combine, every metadata pair must match. */
export interface LinkFilter {
  status?: LinkStatus | undefined;
  metadata?: Readonly<Record<string, string>> | undefined;
}

export const isFiltered = (filter: LinkFilter): boolean =>
  filter.status !== undefined || Object.keys(filter.metadata ?? {}).length > 0;

export function matchesFilter(link: PaymentLink, filter: LinkFilter, now: Date): boolean {
  if (filter.status !== undefined && effectiveStatus(link, now) !== filter.status) return false;
  return Object.entries(filter.metadata ?? {}).every(([key, value]) => link.metadata?.[key] === value);
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
  if (link.request_hash !== null && link.created_as === null) after.created_as = patchableOf(link);
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

const patchableOf = (link: PaymentLink): PatchableFields => ({
  description: link.description,
  redirect_url: link.redirect_url,
  webhook_url: link.webhook_url,
  metadata: link.metadata,
  expires_at: link.expires_at,
  locale: link.locale,
});

/** The currency the link is paid in: its amount's, or its range's. */
export function linkCurrency(link: AmountSource): string {
  switch (link.amount_kind) {
    case 'fixed':
    case 'line_items':
      return link.amount.currency;
    case 'range':
      return link.amount_range.currency;
  }
}
