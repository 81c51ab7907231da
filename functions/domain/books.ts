import type { PaymentBuyer } from './buyer.ts';
import type { Provider } from './connection.ts';
import type { Amount } from './money.ts';
import { type Payment, type PaymentResource, toPaymentResource } from './payment.ts';
import type { Refund } from './payment-link.ts';
import type { Mode } from './principal.ts';

/**
 * The account-wide books (docs/api.md#books): every payment and refund of an (account, mode), newest first,
 * filtered. Pure: what an entry is, whether it passes the filters, and its rows in a CSV export.
 */

/** A refund as the books list it: the refund, with what the filters ask of its payment. */
export interface RefundEntry extends Refund {
  account: string;
  mode: Mode;
  connection_id: string;
  provider: Provider;
  /** The refunded payment's `client_reference_id`, erased with it. */
  client_reference_id?: string;
}

/** What `GET /v1/payments` and `GET /v1/refunds` filter on, all optional, all at once. */
export interface BooksFilter {
  /** Created at or after (ISO 8601, as stored). */
  createdGte?: string | undefined;
  /** Created strictly before. */
  createdLt?: string | undefined;
  status?: string | undefined;
  connectionId?: string | undefined;
  linkId?: string | undefined;
  clientReferenceId?: string | undefined;
}

/** The fields of an entry the filters read (a payment's `link_id`, a refund's `payment_link_id`). */
interface Filterable {
  created_at: string;
  status: string;
  connection_id: string;
  client_reference_id?: string | undefined;
}

/** Whether an entry of `linkId` passes every filter. */
export function passes(entry: Filterable, linkId: string, filter: BooksFilter): boolean {
  return (
    (filter.createdGte === undefined || entry.created_at >= filter.createdGte) &&
    (filter.createdLt === undefined || entry.created_at < filter.createdLt) &&
    (filter.status === undefined || entry.status === filter.status) &&
    (filter.connectionId === undefined || entry.connection_id === filter.connectionId) &&
    (filter.linkId === undefined || linkId === filter.linkId) &&
    (filter.clientReferenceId === undefined || entry.client_reference_id === filter.clientReferenceId)
  );
}

/** CSV exports span at most this many days per request (docs/api.md#csv-exports). */
export const MAX_EXPORT_DAYS = 31;
/**
 * A period given in dates counts its days in the account's time zone, whose clocks may change within it: a month
 * of such days may last up to 2 hours more than its days (Antarctica/Troll's change; elsewhere 1 hour or less).
 */
const CLOCK_CHANGE_MS = 2 * 3_600_000;

/** Why a CSV export's period is refused, or undefined when it is within `MAX_EXPORT_DAYS`. */
export function exportPeriodProblem(filter: BooksFilter): { pointer: string; detail: string } | undefined {
  if (filter.createdGte === undefined) {
    return { pointer: '/created[gte]', detail: 'Required for a CSV export.' };
  }
  if (filter.createdLt === undefined)
    return { pointer: '/created[lt]', detail: 'Required for a CSV export.' };
  const length = Date.parse(filter.createdLt) - Date.parse(filter.createdGte);
  if (length <= 0) return { pointer: '/created[lt]', detail: 'Must be after `created[gte]`.' };
  if (length > MAX_EXPORT_DAYS * 86_400_000 + CLOCK_CHANGE_MS) {
    return { pointer: '/created[lt]', detail: `At most ${MAX_EXPORT_DAYS} days after \`created[gte]\`.` };
  }
  return undefined;
}

/** A payment in the books: as its link shows it, with the link and the buyer. */
export interface BookPayment extends PaymentResource {
  link_id: string;
  client_reference_id: string | null;
  buyer: PaymentBuyer | null;
}

export const toBookPayment = (payment: Payment, link: { amount: Amount | null }): BookPayment => ({
  ...toPaymentResource(payment, link),
  link_id: payment.link_id,
  client_reference_id: payment.client_reference_id ?? null,
  buyer: payment.buyer ?? null,
});

/** A refund in the books: the refund, with the connection and reference of its payment. */
export interface BookRefund extends Refund {
  connection_id: string;
  client_reference_id: string | null;
}

export const toBookRefund = ({
  account,
  mode,
  provider,
  client_reference_id,
  ...refund
}: RefundEntry): BookRefund => ({
  ...refund,
  client_reference_id: client_reference_id ?? null,
});

/** The characters OWASP lists as formula starts for spreadsheets (CSV injection), besides a leading tab or CR. */
const FORMULA_STARTS = /^[=+\-@]/;

/**
 * A cell a spreadsheet would not run as a formula (OWASP CSV injection), prefixed with `'` when it starts with a
 * tab or a carriage return, or when its first character past any whitespace or invisible formatting character
 * (zero-width space, byte order mark) is `=`, `+`, `-` or `@` in any form Unicode folds into them (NFKC):
 * spreadsheets read the fullwidth `＝＋－＠` as formula starts too, and some skip leading spaces first. Amounts are never negative, so no number is altered.
 */
export function neutralisedCell(cell: string): string {
  if (cell.startsWith('\t') || cell.startsWith('\r')) return `'${cell}`;
  const first = /^[\s\p{Cf}]*([^\s\p{Cf}])/u.exec(cell)?.[1];
  return first !== undefined && FORMULA_STARTS.test(first.normalize('NFKC')) ? `'${cell}` : cell;
}

/**
 * The books' entry of a refund of `link` (its payment must be a succeeded payment of the link); `reference` is
 * the payment's `client_reference_id`, when it has one.
 */
export function refundEntryOf(
  link: { account: string; mode: Mode },
  payment: { connection_id: string; provider: Provider },
  refund: Refund,
  reference: string | undefined,
): RefundEntry {
  return {
    ...refund,
    account: link.account,
    mode: link.mode,
    connection_id: payment.connection_id,
    provider: payment.provider,
    ...(reference === undefined ? {} : { client_reference_id: reference }),
  };
}
