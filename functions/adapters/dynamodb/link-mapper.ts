import type { AdjustableQuantity, AmountRange, AmountSource, LineItem } from '../../domain/amount.ts';
import type { Collect } from '../../domain/buyer.ts';
import type { Provider } from '../../domain/connection.ts';
import type { CustomField } from '../../domain/custom-fields.ts';
import type { Amount } from '../../domain/money.ts';
import {
  LINK_STATUSES,
  type LinkPlace,
  type LinkSession,
  type LinkUse,
  noReportsOrRefunds,
  type PaidPayment,
  type PatchableFields,
  type PaymentLink,
  type PspPayment,
  type SubscriptionUpdate,
} from '../../domain/payment-link.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import { linkPosition } from '../../ports/link-repository.ts';
import { storedProvider } from './connection-mapper.ts';
import {
  amount,
  arrayOf,
  boolean,
  type Decoder,
  decodeItem,
  type FieldDecoders,
  lazy,
  mismatch,
  mode,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  recordOf,
  string,
  wholeMap,
  withDefault,
  within,
} from './item-decoder.ts';
import { refund } from './refund-mapper.ts';
import { recurringDecoder } from './subscription-mapper.ts';
import { KEY_ATTRIBUTES, keys, merchantPartitionOf, refundCheckKeys, shardOf } from './table-schema.ts';

/**
 * The fields a link item may lack, each with what it reads as (the domain's `PaymentLink` has them all). Each
 * is absent on items written before it existed, and new items still leave it out while it has this value, so
 * that the stored shape (and what a write costs) stays the same (`linkToItem`):
 * - `connections` (2026-11-23, failover at checkout): the link's own ordered connections, else the routing;
 * - `reported_payments` (2026-11-23): written from the first reported payment on;
 * - `refunds`, `refund_reserved_minor`, `refund_refunded_minor` (2026-11-23, refunds), `refund_check_at` and
 *   `refund_checks` (2026-11-23, refunds the PSP settles later): written from the first refund on;
 * - `duplicate_payments` (2026-11-29, refunds of a single-use link's duplicate payments): written by the first
 *   refund of a duplicate payment (`RefundLedger.reserve`);
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
const LINK_DEFAULTS: { [F in DefaultedField]: () => PaymentLink[F] } = {
  // Functions: a fresh list or map on every read, so that no two links share one.
  line_items: () => null,
  amount_range: () => null,
  payment_methods: () => null,
  locale: () => null,
  collect: () => null,
  custom_fields: () => null,
  connections: () => null,
  reusable: () => false,
  max_payments: () => null,
  paid_payments: () => ({}),
  sessions_stale_before: () => null,
  request_hash: () => null,
  created_as: () => null,
  canceled_at: () => null,
  expired_at: () => null,
  payments_in_order: () => false,
  places: () => ({}),
  recurring: () => null,
  subscription_update: () => null,
  reported_payments: () => noReportsOrRefunds().reported_payments,
  refunds: () => noReportsOrRefunds().refunds,
  refund_reserved_minor: () => noReportsOrRefunds().refund_reserved_minor,
  refund_refunded_minor: () => noReportsOrRefunds().refund_refunded_minor,
  duplicate_payments: () => noReportsOrRefunds().duplicate_payments,
  refund_check_at: () => noReportsOrRefunds().refund_check_at,
  refund_checks: () => noReportsOrRefunds().refund_checks,
};

/** Every field of `LINK_DEFAULTS` at its default. */
export function linkDefaults(): Pick<PaymentLink, DefaultedField> {
  const defaults: Record<string, unknown> = {};
  for (const [field, fallback] of Object.entries(LINK_DEFAULTS)) defaults[field] = fallback();
  return defaults as Pick<PaymentLink, DefaultedField>;
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
  | 'duplicate_payments'
  | 'refund_refunded_minor'
  | 'refund_check_at'
  | 'refund_checks';

/**
 * A link item as stored: any field of `linkDefaults` may be absent, and so may a session's or payment's amount.
 * The kinds are not stored: `amount_kind` is read from which amount fields are set, and `reusable` is its own.
 */
export type StoredLink = Omit<PaymentLink, DefaultedField | 'amount_kind' | 'payment' | 'psp_session'> &
  Partial<Pick<PaymentLink, DefaultedField>> & {
    payment: Charged<PspPayment> | null;
    psp_session: Charged<LinkSession> | null;
  };

/** A link item's fields once decoded: every one there, but for what a payment or session charged. */
type LinkFields = Omit<
  PaymentLink,
  'amount_kind' | 'places' | 'payment' | 'psp_session' | 'paid_payments'
> & {
  paid_payments: Record<string, Charged<PaidPayment>>;
  payment: Charged<PspPayment> | null;
  psp_session: Charged<LinkSession> | null;
};

/** A payment, session or paid payment as stored: what it charged is absent on those stored before it was kept. */
type Charged<T extends { amount?: Amount }> = Omit<T, 'amount'> & { amount?: Amount };

/** A field of `LINK_DEFAULTS`: absent, it reads as its default. */
const later = <F extends DefaultedField & keyof LinkFields>(field: F, decode: Decoder<LinkFields[F]>) =>
  withDefault(decode, LINK_DEFAULTS[field]);

/**
 * A payment or session stored on the link: written whole by the service; its provider and what it charged are
 * what this mapper reads.
 */
const charged = <T extends { provider: Provider; amount?: Amount }>() =>
  wholeMap<Charged<T>>({ provider: storedProvider, amount: optional(amount) } as Partial<
    FieldDecoders<Charged<T>>
  >);

const lineItem = () =>
  objectOf<LineItem>({
    name: string,
    quantity: number,
    unit_amount: amount,
    tax_rate: optional(nullable(string)),
    adjustable_quantity: optional(nullable(wholeMap<AdjustableQuantity>())),
  });

const amountRange = () =>
  objectOf<AmountRange>({
    currency: string,
    minimum: string,
    maximum: string,
    suggested: optional(nullable(string)),
  });

const paidPayment = () =>
  wholeMap<Charged<PaidPayment>>({
    provider: storedProvider,
    amount: optional(amount),
    refund_reserved_minor: number,
    refund_refunded_minor: number,
  });

/** A single-use link's duplicate payment, recorded with its amount from the start. */
const duplicatePayment = () =>
  wholeMap<PaidPayment>({
    provider: storedProvider,
    amount,
    refund_reserved_minor: number,
    refund_refunded_minor: number,
  });

const subscriptionUpdate = () => objectOf<SubscriptionUpdate>({ subscription_id: string, period: number });

const linkFields = (): FieldDecoders<LinkFields> => ({
  id: string,
  account: string,
  mode,
  status: oneOf(LINK_STATUSES),
  description: nullable(string),
  redirect_url: nullable(string),
  webhook_url: nullable(string),
  metadata: nullable(recordOf(string)),
  amount: nullable(amount),
  line_items: later('line_items', nullable(arrayOf(lineItem()))),
  amount_range: later('amount_range', nullable(amountRange())),
  payment_methods: later('payment_methods', nullable(arrayOf(oneOf(PAYMENT_METHODS)))),
  locale: later('locale', nullable(string)),
  collect: later('collect', nullable(wholeMap<Collect>())),
  custom_fields: later('custom_fields', nullable(arrayOf(wholeMap<CustomField>()))),
  connections: later('connections', nullable(arrayOf(string))),
  reusable: later('reusable', boolean),
  max_payments: later('max_payments', nullable(number)),
  paid_payments: withDefault(recordOf(paidPayment()), () => ({})),
  sessions_stale_before: later('sessions_stale_before', nullable(string)),
  created_at: string,
  expires_at: nullable(string),
  paid_at: nullable(string),
  canceled_at: later('canceled_at', nullable(string)),
  expired_at: later('expired_at', nullable(string)),
  payment: nullable(charged<PspPayment>()),
  psp_session: nullable(charged<LinkSession>()),
  reported_payments: later('reported_payments', arrayOf(string)),
  refunds: later('refunds', arrayOf(refund)),
  refund_reserved_minor: later('refund_reserved_minor', number),
  refund_refunded_minor: later('refund_refunded_minor', number),
  duplicate_payments: later('duplicate_payments', recordOf(duplicatePayment())),
  refund_check_at: later('refund_check_at', nullable(string)),
  refund_checks: later('refund_checks', number),
  event_ids: arrayOf(string),
  version: number,
  request_hash: later('request_hash', nullable(string)),
  created_as: later('created_as', nullable(wholeMap<PatchableFields>())),
  payments_in_order: later('payments_in_order', boolean),
  recurring: later('recurring', nullable(recurringDecoder)),
  subscription_update: later('subscription_update', nullable(subscriptionUpdate())),
});

/**
 * What the link's payment, its session or a reusable link's paid payment charged. Kept since 2026-11-25 (payment
 * amounts); one stored before was at its link's fixed amount, which is what the domain always read it as.
 * Buyer-chosen amounts came after, so only a corrupt item lacks both.
 */
function chargedAmount<T>(stored: Charged<T & { amount: Amount }>, link: LinkFields): T {
  const amount = stored.amount ?? link.amount ?? mismatch('an amount, on it or on its link', undefined);
  return { ...stored, amount } as T;
}

/** The link's amount kind, from which of its amount fields are set (a range, lines, else a fixed amount). */
function amountSourceOf(link: LinkFields): AmountSource {
  const { amount, line_items, amount_range } = link;
  if (amount_range) return { amount_kind: 'range', amount: null, line_items: null, amount_range };
  if (!amount) return mismatch('an amount or an amount range', amount);
  return line_items?.length
    ? { amount_kind: 'line_items', amount, line_items, amount_range: null }
    : { amount_kind: 'fixed', amount, line_items: null, amount_range: null };
}

/** Single-use or reusable, with a reusable link's limit and payments. */
function useOf(link: LinkFields): LinkUse {
  if (!link.reusable) return { reusable: false, max_payments: null, paid_payments: {} };
  const paid: Record<string, PaidPayment> = {};
  for (const [id, payment] of Object.entries(link.paid_payments)) {
    paid[id] = within(['paid_payments', id], () => chargedAmount<PaidPayment>(payment, link));
  }
  return { reusable: true, max_payments: link.max_payments, paid_payments: paid };
}

/** The item attribute of a link's place `slot` (see `places` above). */
export const placeAttribute = (slot: number | string): string => `place_${slot}`;
const PLACE_ATTRIBUTE = /^place_(\d+)$/;

const place = /* @__PURE__ */ lazy(() => objectOf<LinkPlace>({ holder: string, until: nullable(string) }));
const decodeFields = /* @__PURE__ */ lazy(() => objectOf(linkFields(), { omit: KEY_ATTRIBUTES }));

/** The places among a stored item's attributes, and the item without them. */
function placesOfItem(item: Record<string, unknown>) {
  const rest: Record<string, unknown> = {};
  const places: Record<string, LinkPlace> = {};
  for (const [name, value] of Object.entries(item)) {
    const slot = PLACE_ATTRIBUTE.exec(name)?.[1];
    if (slot === undefined) rest[name] = value;
    else places[slot] = within([name], () => place(value));
  }
  return { rest, places };
}

const decodeLink: Decoder<PaymentLink> = (item) => {
  const { rest, places } = placesOfItem(item as Record<string, unknown>);
  const stored = decodeFields(rest);
  const { payment, psp_session: session } = stored;
  return {
    ...stored,
    places,
    ...amountSourceOf(stored),
    ...useOf(stored),
    payment: payment && within(['payment'], () => chargedAmount<PspPayment>(payment, stored)),
    psp_session: session && within(['psp_session'], () => chargedAmount<LinkSession>(session, stored)),
  };
};

/**
 * The domain's link of a stored item (docs/data-model.md#reading-an-item): index keys dropped, `linkDefaults`
 * for what an older item lacks. `UndecodableItemError` when it is not a link.
 */
export const linkFromItem = (item: Record<string, unknown>): PaymentLink =>
  decodeItem('payment link', decodeLink, item);

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
  'duplicate_payments',
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
  const leftOutAtDefault = [
    ...WHEN_SET,
    ...(link.reusable ? [] : OF_REUSABLE),
    ...(link.refunds.length > 0 ? [] : OF_REFUNDED),
  ];
  for (const field of leftOutAtDefault) if (isDefault(link, field)) delete stored[field];
  delete stored.places;
  return stored;
}

function isDefault(link: PaymentLink, field: DefaultedField): boolean {
  const value: unknown = link[field];
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0;
  return value === LINK_DEFAULTS[field]();
}

/**
 * A link's gsi3 attributes, sparse: the list of the sweeper due on it first. An open link with an expiry is on the
 * expiry sweeper's; one with a refund check due on the refund sweeper's. An open reusable link that needs both is on
 * the earlier one's, and on the other's once that sweeper has written it (a check moves `refund_check_at` on, or
 * clears it; an expiry ends the link's openness): one entry per item, and neither sweep late
 * (docs/data-model.md, "Sweepers' lists").
 */
export function linkSweeperKeys(link: {
  id: string;
  status: string;
  expires_at: string | null;
  refund_check_at: string | null;
}): { gsi3pk?: string; gsi3sk?: string } {
  const expiry = link.status === 'open' ? link.expires_at : null;
  const check = link.refund_check_at;
  if (expiry && (!check || Date.parse(expiry) <= Date.parse(check))) {
    return { gsi3pk: keys.expiryShard(shardOf(link.id)), gsi3sk: `${expiry}#${link.id}` };
  }
  return check ? refundCheckKeys(link.id, check) : {};
}

/** The stored item of a link with its index keys (exported for fixtures that write many links in batches). */
export function linkToItem(link: PaymentLink) {
  return {
    ...keys.link(link.id, link.mode),
    gsi1pk: merchantPartitionOf(keys.linkListing(link.account, link.mode), link.id),
    gsi1sk: linkPosition(link),
    ...linkSweeperKeys(link),
    ...storedFields(link),
    ...Object.fromEntries(Object.entries(link.places).map(([slot, held]) => [placeAttribute(slot), held])),
  };
}
