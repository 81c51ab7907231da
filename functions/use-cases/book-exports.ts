import { type ExportRow, paymentRow, type RowContext, refundRow } from '../domain/book-exports.ts';
import { addPayment, type CurrencySummary, summaryOf, type Totals } from '../domain/book-totals.ts';
import { type BooksFilter, toBookPayment } from '../domain/books.ts';
import { BUILT_IN_SANDBOX_ID, builtInSandbox } from '../domain/connection.ts';
import type { Amount } from '../domain/money.ts';
import type { Principal } from '../domain/principal.ts';
import { DATE_PATTERN, DEFAULT_TIME_ZONE, instantOf } from '../domain/time-zones.ts';
import type { BooksPage } from '../ports/books.ts';
import type { AccountSettingsRepository } from '../ports/personal-data.ts';
import type { ConnectionDirectory } from '../ports/psp-connections.ts';
import { type BooksDependencies, type BooksRequest, listBookPayments } from './books.ts';

/**
 * What the books' CSV exports and totals read besides the listings (docs/api.md#csv-exports): each entry's link
 * and connection for its row, and the account's time zone for the dates of a period.
 */
export interface BookExportDependencies extends BooksDependencies {
  /** The (account, mode)'s connections, read once per export for their names. */
  connections: { directory(account: string, mode: Principal['mode']): Promise<ConnectionDirectory> };
}

/** A link as an export's rows read it, and its amount for payments older than their own. */
type ExportedLink = NonNullable<RowContext['link']> & { amount: Amount | null };

/**
 * What one export has read of links and connections: each link once however many of its entries the export
 * holds (a reusable link's many payments), the connections' names once. One per export request.
 */
export interface ExportReads {
  links: Map<string, Promise<ExportedLink | undefined>>;
  names?: Promise<Map<string, string>>;
}

export const newExportReads = (): ExportReads => ({ links: new Map() });

/** The links of `ids` an export has not read yet, read together, each once per export. */
function readLinks(
  deps: BooksDependencies,
  principal: Principal,
  reads: ExportReads,
  ids: readonly string[],
) {
  const unread = ids.filter((id) => !reads.links.has(id));
  if (!unread.length) return;
  const read = deps.links.getMany(unread, principal.mode).then(
    (links) =>
      new Map(
        links
          .filter((link) => link.account === principal.account)
          .map((link) => [
            link.id,
            {
              description: link.description,
              metadata: link.metadata,
              quantities: link.line_items?.map((item) => item.quantity) ?? null,
              amount: link.amount,
            },
          ]),
      ),
  );
  for (const id of unread)
    reads.links.set(
      id,
      read.then((found) => found.get(id)),
    );
}

function namesOf(deps: BookExportDependencies, principal: Principal, reads: ExportReads) {
  reads.names ??= deps.connections
    .directory(principal.account, principal.mode)
    .then(
      (directory) =>
        new Map([
          [BUILT_IN_SANDBOX_ID, builtInSandbox(principal.account, principal.mode).name],
          ...directory.connections.map(({ connection }) => [connection.id, connection.name] as const),
        ]),
    );
  return reads.names;
}

/** The contexts of a page's entries (by link and connection), their links read at once. */
async function contextsOf(
  deps: BookExportDependencies,
  principal: Principal,
  reads: ExportReads,
  entries: readonly { linkId: string; connectionId: string }[],
): Promise<(entry: { linkId: string; connectionId: string }) => RowContext & { amount: Amount | null }> {
  const ids = [...new Set(entries.map((entry) => entry.linkId))];
  readLinks(deps, principal, reads, ids);
  const [names, links] = await Promise.all([
    namesOf(deps, principal, reads),
    Promise.all(ids.map((id) => reads.links.get(id))),
  ]);
  const byId = new Map(ids.map((id, index) => [id, links[index]] as const));
  return (entry) => {
    const link = byId.get(entry.linkId);
    return { link, connectionName: names.get(entry.connectionId), amount: link?.amount ?? null };
  };
}

/** A page of the payments export: each payment's row (docs/api.md#csv-exports). */
export async function exportBookPayments(
  deps: BookExportDependencies,
  principal: Principal,
  request: BooksRequest,
  reads: ExportReads,
): Promise<BooksPage<ExportRow>> {
  const page = await deps.books.payments({ ...request, account: principal.account, mode: principal.mode });
  const of = (payment: (typeof page.entries)[number]) => ({
    linkId: payment.link_id,
    connectionId: payment.connection_id,
  });
  const context = await contextsOf(deps, principal, reads, page.entries.map(of));
  return {
    entries: page.entries.map((payment) => {
      const row = context(of(payment));
      return paymentRow(toBookPayment(payment, row), row);
    }),
    next: page.next,
  };
}

/** A page of the refunds export: each refund's row. */
export async function exportBookRefunds(
  deps: BookExportDependencies,
  principal: Principal,
  request: BooksRequest,
  reads: ExportReads,
): Promise<BooksPage<ExportRow>> {
  const page = await deps.books.refunds({ ...request, account: principal.account, mode: principal.mode });
  const of = (refund: (typeof page.entries)[number]) => ({
    linkId: refund.payment_link_id,
    connectionId: refund.connection_id,
  });
  const context = await contextsOf(deps, principal, reads, page.entries.map(of));
  return {
    entries: page.entries.map((refund) => refundRow(refund, context(of(refund)))),
    next: page.next,
  };
}

/**
 * The totals read per request: `MAX_SUMMARY_PAGES` pages of `SUMMARY_PAGE_SIZE` payments, each page at most that
 * many listing entries evaluated (docs/api.md#payment-totals): at most 10,000 payments read by one request.
 */
export const SUMMARY_PAGE_SIZE = 1_000;
export const MAX_SUMMARY_PAGES = 10;

/**
 * `GET /v1/payments/summary`: the totals per currency of the payments the list returns with the same filters
 * (succeeded ones: see ../domain/book-totals.ts), read from the listing in bounded pages. `next` is where a
 * longer period stopped: the same request from there gives the totals of the rest, to add up.
 */
export async function summarizeBookPayments(
  deps: BooksDependencies,
  principal: Principal,
  request: BooksFilter & { after?: string | undefined },
): Promise<{ currencies: CurrencySummary[]; next: string | undefined }> {
  const totals: Totals = new Map();
  let after = request.after;
  for (let pages = 0; pages < MAX_SUMMARY_PAGES; pages++) {
    const page = await listBookPayments(deps, principal, { ...request, limit: SUMMARY_PAGE_SIZE, after });
    for (const payment of page.entries) addPayment(totals, payment);
    after = page.next;
    if (after === undefined) break;
  }
  return { currencies: summaryOf(totals), next: after };
}

/** A period's bounds as given (dates or RFC 3339 times), and as the books compare them. */
export interface PeriodBounds {
  gte?: string | undefined;
  lt?: string | undefined;
}

/**
 * The bounds of a period as instants (as stored times are written): a date is the start of that day in the
 * account's time zone (`GET /v1/account-settings`), which is read only when a bound is a date.
 */
export async function booksPeriod(
  deps: { settings: AccountSettingsRepository },
  principal: Principal,
  bounds: PeriodBounds,
): Promise<{ createdGte: string | undefined; createdLt: string | undefined }> {
  const dated = [bounds.gte, bounds.lt].some((bound) => bound !== undefined && DATE_PATTERN.test(bound));
  const zone = dated
    ? ((await deps.settings.get(principal.account, principal.mode))?.time_zone ?? DEFAULT_TIME_ZONE)
    : DEFAULT_TIME_ZONE;
  return {
    createdGte: bounds.gte === undefined ? undefined : instantOf(bounds.gte, zone),
    createdLt: bounds.lt === undefined ? undefined : instantOf(bounds.lt, zone),
  };
}
