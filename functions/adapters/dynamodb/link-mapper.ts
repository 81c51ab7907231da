import type { AmountSource } from '../../domain/amount.ts';
import type { Amount } from '../../domain/money.ts';
import {
  type LinkPlace,
  type LinkSession,
  type LinkUse,
  noReportsOrRefunds,
  type PaymentLink,
  type PspPayment,
} from '../../domain/payment-link.ts';
import { linkPosition } from '../../ports/link-repository.ts';
import { keys, merchantPartitionOf, refundCheckKeys, shardOf, withoutKeys } from './table-schema.ts';

/**
 * The fields a link item may lack, each with what it reads as (the domain's `PaymentLink` has them all). Each
 * is absent on items written before it existed, and new items still leave it out while it has this value, so
 * that the stored shape (and what a write costs) stays the same (`linkToItem`):
 * - `connections` (2026-11-23, failover at checkout): the link's own ordered connections, else the routing;
 * - `reported_payments` (2026-11-23): written from the first reported payment on;
 * - `refunds`, `refund_reserved_minor`, `refund_refunded_minor` (2026-11-23, refunds), `refund_check_at` and
 *   `refund_checks` (2026-11-23, refunds the PSP settles later): written from the first refund on;
 * - `line_items`, `payment_methods` (2026-11-25), `amount_range` (2026-11-25, buyer-chosen amounts): written
 *   only when the merchant set them;
 * - `locale` (2026-11-25, languages): written on every link since, null when unset;
 * - `reusable`, `max_payments`, `paid_payments` (2026-11-25, reusable links): written on reusable links only;
 * - `sessions_stale_before` (2026-11-25): written on a reusable link from its first PATCH that buyers see;
 * - `collect`, `custom_fields` (2026-11-28, buyer details and custom fields): written only when the merchant set
 *   them;
 * - `request_hash`, `created_as` (2026-11-28, a keyed create is the link's own write): written on links created
 *   with an `Idempotency-Key`, `created_as` from such a link's first PATCH;
 * - `canceled_at`, `expired_at` (stored from the start, left out while null since 2026-11-28: 24 bytes a link
 *   kept for 30 days, docs/performance.md#cost-per-million-payment-links-on-aws): written once they happen;
 * - `payments_in_order` (2026-11-28): written on reusable links created since, whose payments all have
 *   time-ordered ids; an older link reads all of its payments as before;
 * - `places` (2026-11-29, places of a link with `max_payments`): stored as one attribute per held place,
 *   `place_<number>` (`placeAttribute`), so that taking a place is a write conditioned on that attribute alone;
 * - `recurring`, `subscription_update` (2026-11-30, subscriptions): written only on a subscription link and on an
 *   update link, so that every other link's item stays as it was.
 */
export function linkDefaults(): Pick<PaymentLink, DefaultedField> {
  // Fresh lists and maps on every read: no two links share one.
  return {
    line_items: null,
    amount_range: null,
    payment_methods: null,
    locale: null,
    collect: null,
    custom_fields: null,
    connections: null,
    reusable: false,
    max_payments: null,
    paid_payments: {},
    sessions_stale_before: null,
    request_hash: null,
    created_as: null,
    canceled_at: null,
    expired_at: null,
    payments_in_order: false,
    places: {},
    recurring: null,
    subscription_update: null,
    ...noReportsOrRefunds(),
  };
}

type DefaultedField =
  | 'line_items'
  | 'amount_range'
  | 'payment_methods'
  | 'locale'
  | 'collect'
  | 'custom_fields'
  | 'connections'
  | 'reusable'
  | 'max_payments'
  | 'paid_payments'
  | 'sessions_stale_before'
  | 'request_hash'
  | 'created_as'
  | 'canceled_at'
  | 'expired_at'
  | 'payments_in_order'
  | 'places'
  | 'recurring'
  | 'subscription_update'
  | 'reported_payments'
  | 'refunds'
  | 'refund_reserved_minor'
  | 'refund_refunded_minor'
  | 'refund_check_at'
  | 'refund_checks';

/**
 * A link item as stored: any field of `linkDefaults` may be absent, and so may a session's or payment's amount.
 * The kinds are not stored: `amount_kind` is read from which amount fields are set, and `reusable` is its own.
 */
export type StoredLink = Omit<PaymentLink, DefaultedField | 'amount_kind' | 'payment' | 'psp_session'> &
  Partial<Pick<PaymentLink, DefaultedField>> & {
    payment: (Omit<PspPayment, 'amount'> & { amount?: Amount }) | null;
    psp_session: (Omit<LinkSession, 'amount'> & { amount?: Amount }) | null;
  };

/**
 * What a session or the payment charged. Kept since 2026-11-25 (payment amounts); one stored before was at its
 * link's fixed amount, which is what the domain always read it as. Buyer-chosen amounts came after, so only a
 * corrupt item lacks both.
 */
function chargedAmount(stored: { amount?: Amount }, link: Pick<StoredLink, 'id' | 'amount'>): Amount {
  const amount = stored.amount ?? link.amount;
  if (!amount) throw new Error(`Payment link ${link.id} has a session or payment without an amount.`);
  return amount;
}

/** The link's amount kind, from which of its amount fields are set (a range, lines, else a fixed amount). */
function amountSourceOf(link: StoredLink): AmountSource {
  const { amount, line_items, amount_range } = link;
  if (amount_range) return { amount_kind: 'range', amount: null, line_items: null, amount_range };
  if (!amount) throw new Error(`Payment link ${link.id} has neither an amount nor an amount range.`);
  return line_items?.length
    ? { amount_kind: 'line_items', amount, line_items, amount_range: null }
    : { amount_kind: 'fixed', amount, line_items: null, amount_range: null };
}

/** Single-use or reusable, with a reusable link's limit and payments. */
function useOf(link: StoredLink): LinkUse {
  return link.reusable
    ? { reusable: true, max_payments: link.max_payments ?? null, paid_payments: link.paid_payments ?? {} }
    : { reusable: false, max_payments: null, paid_payments: {} };
}

/** The item attribute of a link's place `slot` (see `places` above). */
export const placeAttribute = (slot: number | string): string => `place_${slot}`;
const PLACE_ATTRIBUTE = /^place_(\d+)$/;

/** The places among a stored item's attributes, and the item without them. */
function placesOfItem(item: Record<string, unknown>) {
  const rest: Record<string, unknown> = {};
  const places: Record<string, LinkPlace> = {};
  for (const [name, value] of Object.entries(item)) {
    const slot = PLACE_ATTRIBUTE.exec(name)?.[1];
    if (slot === undefined) rest[name] = value;
    else places[slot] = value as LinkPlace;
  }
  return { rest, places };
}

/** The domain's link of a stored item (index keys dropped), with `linkDefaults` for what an older item lacks. */
export function linkFromItem(item: Record<string, unknown>): PaymentLink {
  const { rest, places } = placesOfItem(item);
  const stored = withoutKeys<StoredLink>(rest);
  return {
    ...linkDefaults(),
    ...stored,
    places,
    ...amountSourceOf(stored),
    ...useOf(stored),
    payment: stored.payment && { ...stored.payment, amount: chargedAmount(stored.payment, stored) },
    psp_session: stored.psp_session && {
      ...stored.psp_session,
      amount: chargedAmount(stored.psp_session, stored),
    },
  };
}

/** Left out of the item while at their default: only a link that uses one of these holds it. */
const WHEN_SET = [
  'line_items',
  'amount_range',
  'payment_methods',
  'collect',
  'custom_fields',
  'connections',
  'reusable',
  'sessions_stale_before',
  'request_hash',
  'created_as',
  'canceled_at',
  'expired_at',
  'payments_in_order',
  'recurring',
  'subscription_update',
  'reported_payments',
  'refunds',
] as const;
/** A reusable link holds these from its creation, a single-use link never. */
const OF_REUSABLE = ['max_payments', 'paid_payments'] as const;
/** A refunded link holds its bookkeeping from its first refund on (set by `RefundLedger.reserve`). */
const OF_REFUNDED = [
  'refund_reserved_minor',
  'refund_refunded_minor',
  'refund_check_at',
  'refund_checks',
] as const;

/** The link's fields as stored: `locale` always, the rest of `linkDefaults` only when the link needs them. */
function storedFields(link: PaymentLink): StoredLink {
  const { amount_kind: _derived, ...stored }: StoredLink & Pick<PaymentLink, 'amount_kind'> = link;
  const optional = [
    ...WHEN_SET,
    ...(link.reusable ? [] : OF_REUSABLE),
    ...(link.refunds.length > 0 ? [] : OF_REFUNDED),
  ];
  for (const field of optional) if (isDefault(link, field)) delete stored[field];
  delete stored.places;
  return stored;
}

function isDefault(link: PaymentLink, field: DefaultedField): boolean {
  const value: unknown = link[field];
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0;
  return value === linkDefaults()[field];
}

/** The stored item of a link with its index keys (exported for fixtures that write many links in batches). */
export function linkToItem(link: PaymentLink) {
  // Sparse: an open link with an expiry is in gsi3 until its expiry, a paid one while a refund check is due;
  // any other state drops it from there on the next Put.
  const sweeperEntry =
    link.status === 'open' && link.expires_at
      ? { gsi3pk: keys.expiryShard(shardOf(link.id)), gsi3sk: `${link.expires_at}#${link.id}` }
      : link.refund_check_at
        ? refundCheckKeys(link.id, link.refund_check_at)
        : {};
  return {
    ...keys.link(link.id, link.mode),
    gsi1pk: merchantPartitionOf(keys.linkListing(link.account, link.mode), link.id),
    gsi1sk: linkPosition(link),
    ...sweeperEntry,
    ...storedFields(link),
    ...Object.fromEntries(Object.entries(link.places).map(([slot, place]) => [placeAttribute(slot), place])),
  };
}
