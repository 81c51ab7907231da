import type { BookPayment, RefundEntry } from './books.ts';
import { isErased } from './buyer.ts';
import { type FieldError, ValidationError } from './errors.ts';

/**
 * The rows of the books' CSV exports (docs/api.md#csv-exports), pure: each entry's cells by column, the columns a
 * request picks (`columns=`), and the default header. What the rows read besides the entry (its link, its
 * connection's name) is given to them as they are now.
 */

/**
 * The payments export's columns, in order, for API version 1: this list is the default header and never changes
 * within the version (columns are only ever added at its end, by a new version; until then `columns=` names any
 * column). The link's `metadata.<key>` and the answers' `custom_field.<key>` follow it.
 */
export const PAYMENT_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'status',
  'amount',
  'currency',
  'link_id',
  'connection_id',
  'provider',
  'provider_reference',
  'failure_code',
  'client_reference_id',
  'buyer_email',
  'buyer_name',
  'buyer_phone',
  'billing_country',
  'shipping_country',
  'description',
  'quantities',
  'amount_refunded',
  'refund_status',
  'fee',
  'net',
  'fee_source',
  'connection_name',
] as const;

/** The refunds export's columns (as `PAYMENT_COLUMNS`), followed by the link's `metadata.<key>`. */
export const REFUND_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'status',
  'amount',
  'currency',
  'payment_id',
  'link_id',
  'connection_id',
  'provider_reference',
  'failure_code',
  'client_reference_id',
  'provider',
  'description',
  'connection_name',
] as const;

/** The columns that name a key: one per key present, after the fixed ones, each kind sorted by key. */
export const METADATA_PREFIX = 'metadata.';
export const CUSTOM_FIELD_PREFIX = 'custom_field.';
export type KeyedPrefix = typeof METADATA_PREFIX | typeof CUSTOM_FIELD_PREFIX;

/** How many keyed columns of each kind a default header holds at most (the first keys in sort order). */
export const MAX_KEYED_COLUMNS = 100;
/** How many columns `columns=` may name. */
export const MAX_PICKED_COLUMNS = 200;

/** What a row reads besides its entry, as it is now: the entry's link, and its connection's name. */
export interface RowContext {
  /** Undefined when the link cannot be read (a row never fails for it). */
  link:
    | {
        description: string | null;
        metadata: Record<string, string> | null;
        /** The quantity of each of the link's lines, or null for a link without lines. */
        quantities: number[] | null;
      }
    | undefined;
  /** Undefined for a connection removed since. */
  connectionName: string | undefined;
}

/** A row: its cells by column name. */
export type ExportRow = Record<string, string>;

const keyed = (prefix: KeyedPrefix, entries: Iterable<readonly [string, string]>): ExportRow =>
  Object.fromEntries([...entries].map(([key, value]) => [`${prefix}${key}`, value]));

const linkCells = (context: RowContext) => ({
  description: context.link?.description ?? '',
  connection_name: context.connectionName ?? '',
  ...keyed(METADATA_PREFIX, Object.entries(context.link?.metadata ?? {})),
});

function buyerCells(payment: BookPayment) {
  const buyer = payment.buyer && !isErased(payment.buyer) ? payment.buyer : {};
  return {
    buyer_email: buyer.email ?? '',
    buyer_name: buyer.name ?? '',
    buyer_phone: buyer.phone ?? '',
    billing_country: buyer.billing_address?.country ?? '',
    shipping_country: buyer.shipping_address?.country ?? '',
  };
}

const moneyCells = (payment: BookPayment) => ({
  amount_refunded: payment.amount_refunded.value,
  refund_status: payment.refund_status,
  fee: payment.fee?.value ?? '',
  net: payment.net?.value ?? '',
  fee_source: payment.fee_source ?? '',
});

export function paymentRow(payment: BookPayment, context: RowContext): ExportRow {
  const quantities = payment.quantities ?? context.link?.quantities;
  return {
    id: payment.id,
    created_at: payment.created_at,
    updated_at: payment.updated_at,
    status: payment.status,
    amount: payment.amount.value,
    currency: payment.amount.currency,
    link_id: payment.link_id,
    connection_id: payment.connection_id,
    provider: payment.provider,
    provider_reference: payment.provider_reference ?? '',
    failure_code: payment.failure?.code ?? '',
    client_reference_id: payment.client_reference_id ?? '',
    ...buyerCells(payment),
    quantities: quantities?.join(';') ?? '',
    ...moneyCells(payment),
    ...linkCells(context),
    ...keyed(
      CUSTOM_FIELD_PREFIX,
      (payment.custom_fields ?? []).map((answer) => [answer.key, answer.value] as const),
    ),
  };
}

export function refundRow(refund: RefundEntry, context: RowContext): ExportRow {
  return {
    id: refund.id,
    created_at: refund.created_at,
    updated_at: refund.updated_at,
    status: refund.status,
    amount: refund.amount.value,
    currency: refund.amount.currency,
    payment_id: refund.payment_id,
    link_id: refund.payment_link_id,
    connection_id: refund.connection_id,
    provider_reference: refund.provider_reference ?? '',
    failure_code: refund.failure?.code ?? '',
    client_reference_id: refund.client_reference_id ?? '',
    provider: refund.provider,
    ...linkCells(context),
  };
}

/** The columns of one export kind: its fixed list and the kinds of keyed columns its rows have. */
export interface ExportColumns {
  fixed: readonly string[];
  keyed: readonly KeyedPrefix[];
}

export const PAYMENT_EXPORT: ExportColumns = {
  fixed: PAYMENT_COLUMNS,
  keyed: [METADATA_PREFIX, CUSTOM_FIELD_PREFIX],
};
export const REFUND_EXPORT: ExportColumns = { fixed: REFUND_COLUMNS, keyed: [METADATA_PREFIX] };

/**
 * The default header of an export whose rows hold the columns `present`: the fixed columns, then for each kind of
 * keyed column every key present, sorted, at most `MAX_KEYED_COLUMNS` of each (`columns=` names any other).
 */
export function defaultColumns(columns: ExportColumns, present: ReadonlySet<string>): string[] {
  const keyedColumns = columns.keyed.flatMap((prefix) =>
    [...present]
      .filter((column) => column.startsWith(prefix))
      .sort()
      .slice(0, MAX_KEYED_COLUMNS),
  );
  return [...columns.fixed, ...keyedColumns];
}

/** A key a keyed column may name: a metadata key (1 to 40 characters) or a custom field's key. */
const KEY = /^[^,]{1,40}$/;

/**
 * The columns `columns=` picks, in its order (comma-separated): each a fixed column of the export or a keyed one
 * of its kinds (`metadata.order_id`), at most once, at most `MAX_PICKED_COLUMNS`; otherwise a `ValidationError`
 * at `/columns`.
 */
export function pickedColumns(text: string, columns: ExportColumns): string[] {
  const names = text.split(',').map((name) => name.trim());
  const known = (name: string) =>
    columns.fixed.includes(name) ||
    columns.keyed.some((prefix) => name.startsWith(prefix) && KEY.test(name.slice(prefix.length)));
  const problems: FieldError[] = [];
  const unknown = names.filter((name) => !known(name));
  if (unknown.length) {
    problems.push({
      pointer: '/columns',
      detail: `Not a column of this export: ${unknown.map((name) => JSON.stringify(name)).join(', ')}. Columns: ${columns.fixed.join(', ')}, or ${columns.keyed.map((prefix) => `${prefix}<key>`).join(', ')}.`,
    });
  }
  if (new Set(names).size !== names.length) {
    problems.push({ pointer: '/columns', detail: 'Names each column at most once.' });
  }
  if (names.length > MAX_PICKED_COLUMNS) {
    problems.push({ pointer: '/columns', detail: `At most ${MAX_PICKED_COLUMNS} columns.` });
  }
  if (problems.length) throw new ValidationError(problems);
  return names;
}
