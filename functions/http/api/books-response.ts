import { stringify } from 'csv-stringify/sync';
import {
  defaultColumns,
  type ExportColumns,
  type ExportRow,
  pickedColumns,
} from '../../domain/book-exports.ts';
import { type BooksFilter, exportPeriodProblem, neutralisedCell } from '../../domain/books.ts';
import { ValidationError } from '../../domain/errors.ts';
import { decodeCursor, encodeCursor } from '../../domain/page-cursor.ts';
import type { Principal } from '../../domain/principal.ts';
import type { BooksPage } from '../../ports/books.ts';
import type { PeriodBounds } from '../../use-cases/book-exports.ts';
import type { BooksRequest } from '../../use-cases/books.ts';
import { type ApiEvent, type ApiResult, json } from './api-handler.ts';
import { MAX_LIST_LIMIT } from './list-query.ts';

/**
 * A CSV export ends after about this many bytes, below Lambda's 6 MB for a buffered response (an HTTP API cannot
 * stream one): a longer period is continued by the `Link: rel="next"` the response carries
 * (docs/api.md#csv-exports). Memory stays bounded by it, whatever the period holds.
 */
export const MAX_CSV_BYTES = 5_000_000;

/** The query of a books listing, as parsed by its schema (`listBookPaymentsQuery`). */
export interface BooksQueryParameters {
  'created[gte]'?: string | undefined;
  'created[lt]'?: string | undefined;
  status?: string | undefined;
  connection_id?: string | undefined;
  link_id?: string | undefined;
  client_reference_id?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  columns?: string | undefined;
}

/** How one listing answers: its period, the use case's page, the CSV's rows and columns. */
export interface BooksListing<T> {
  /** The id prefix of what is listed (the cursor's position names one). */
  of: 'pay' | 're';
  name: 'payments' | 'refunds';
  /** The period's bounds as instants: a date is a day of the account's time zone (`booksPeriod`). */
  period: (
    bounds: PeriodBounds,
  ) => Promise<{ createdGte: string | undefined; createdLt: string | undefined }>;
  list: (request: BooksRequest) => Promise<BooksPage<T>>;
  /** A page of the CSV's rows (one export's pages are asked in turn). */
  rows: (request: BooksRequest) => Promise<BooksPage<ExportRow>>;
  columns: ExportColumns;
  /** Where a CSV export ends (default `MAX_CSV_BYTES`). */
  maxCsvBytes?: number;
}

/** The request a query makes: its cursor's position, its period as instants, its filters. */
export async function booksRequestOf(
  listing: Pick<BooksListing<unknown>, 'of' | 'period'>,
  principal: Principal,
  query: BooksQueryParameters,
): Promise<BooksRequest> {
  const after = query.cursor === undefined ? undefined : decodeCursor(principal, query.cursor, listing.of);
  if (query.cursor !== undefined && after === undefined) {
    throw new ValidationError([
      { pointer: '/cursor', detail: 'Not a cursor this API key was given: pass `next_cursor` unchanged.' },
    ]);
  }
  return {
    limit: query.limit ?? MAX_LIST_LIMIT,
    after,
    ...(await listing.period({ gte: query['created[gte]'], lt: query['created[lt]'] })),
    status: query.status,
    connectionId: query.connection_id,
    linkId: query.link_id,
    clientReferenceId: query.client_reference_id,
  };
}

const wantsCsv = (event: ApiEvent) => /\btext\/csv\b/i.test(event.headers.accept ?? '');

/**
 * `GET /v1/payments` or `GET /v1/refunds`: a JSON page, or with `Accept: text/csv` the whole period as CSV
 * (docs/api.md#csv-exports).
 */
export async function booksResponse<T>(
  listing: BooksListing<T>,
  principal: Principal,
  event: ApiEvent,
  query: BooksQueryParameters,
): Promise<ApiResult> {
  const picked = query.columns === undefined ? undefined : pickedColumns(query.columns, listing.columns);
  const request = await booksRequestOf(listing, principal, query);
  if (wantsCsv(event)) return csvExport(listing, principal, event, request, picked);
  const page = await listing.list(request);
  return json(200, {
    data: page.entries,
    next_cursor: page.next ? encodeCursor(principal, page.next) : null,
  });
}

/**
 * The CSV of a period of at most `MAX_EXPORT_DAYS`: pages read one after another until the answer would pass
 * `MAX_CSV_BYTES`, then written under one header (the picked columns, or the default ones of the rows read),
 * RFC 4180 (CRLF, quoted where needed), every cell neutralised against formulas, the header's too.
 */
async function csvExport<T>(
  listing: BooksListing<T>,
  principal: Principal,
  event: ApiEvent,
  request: BooksRequest,
  picked: string[] | undefined,
): Promise<ApiResult> {
  const problem = exportPeriodProblem(request as BooksFilter);
  if (problem) throw new ValidationError([problem]);
  const rows: ExportRow[] = [];
  const present = new Set<string>();
  let cellBytes = 0;
  const columnCount = () => picked?.length ?? defaultColumns(listing.columns, present).length;
  let after = request.after;
  do {
    const page = await listing.rows({ ...request, after, limit: MAX_LIST_LIMIT });
    for (const row of page.entries) {
      rows.push(row);
      for (const column of Object.keys(row)) present.add(column);
      cellBytes += Buffer.byteLength(csvLine(Object.values(row)));
    }
    after = page.next;
    // Each row's own cells, and a separator for every column of the header (empty cells included).
  } while (
    after !== undefined &&
    cellBytes + rows.length * columnCount() < (listing.maxCsvBytes ?? MAX_CSV_BYTES)
  );
  const columns = picked ?? defaultColumns(listing.columns, present);
  const body = [columns, ...rows.map((row) => columns.map((column) => row[column] ?? ''))].map(csvLine);
  const next: Record<string, string> =
    after === undefined ? {} : { Link: nextLink(event, encodeCursor(principal, after)) };
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${listing.name}.csv"`,
      'Cache-Control': 'no-store',
      ...next,
    },
    body: body.join(''),
  };
}

const csvLine = (cells: readonly string[]) =>
  stringify([cells.map(neutralisedCell)], { record_delimiter: 'windows' });

/** The same request continued after `cursor` (RFC 8288 `Link`, `rel="next"`). */
function nextLink(event: ApiEvent, cursor: string): string {
  const parameters = new URLSearchParams(
    Object.entries(event.queryStringParameters ?? {}).flatMap(([key, value]) =>
      key === 'cursor' || value === undefined ? [] : [[key, value] as [string, string]],
    ),
  );
  parameters.set('cursor', cursor);
  return `<${event.rawPath}?${parameters.toString()}>; rel="next"`;
}
