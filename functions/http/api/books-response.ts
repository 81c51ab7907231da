import { stringify } from 'csv-stringify/sync';
import { type BooksFilter, exportPeriodProblem, neutralisedCell } from '../../domain/books.ts';
import { ValidationError } from '../../domain/errors.ts';
import { decodeCursor, encodeCursor } from '../../domain/page-cursor.ts';
import type { Principal } from '../../domain/principal.ts';
import type { BooksPage } from '../../ports/books.ts';
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
  limit: number;
  cursor?: string | undefined;
}

/** How one listing answers: the use case's page, each entry's JSON and CSV row, and the CSV's columns. */
export interface BooksListing<T> {
  /** The id prefix of what is listed (the cursor's position names one). */
  of: 'pay' | 're';
  name: 'payments' | 'refunds';
  list: (request: BooksRequest) => Promise<BooksPage<T>>;
  columns: readonly string[];
  row: (entry: T) => Record<string, string>;
  /** Where a CSV export ends (default `MAX_CSV_BYTES`). */
  maxCsvBytes?: number;
}

/** ISO 8601 as stored (UTC, milliseconds), so that bounds compare with stored times as text. */
const stored = (time: string | undefined) => (time === undefined ? undefined : new Date(time).toISOString());

function requestOf(principal: Principal, query: BooksQueryParameters, of: 'pay' | 're'): BooksRequest {
  const after = query.cursor === undefined ? undefined : decodeCursor(principal, query.cursor, of);
  if (query.cursor !== undefined && after === undefined) {
    throw new ValidationError([
      { pointer: '/cursor', detail: 'Not a cursor this API key was given: pass `next_cursor` unchanged.' },
    ]);
  }
  return {
    limit: query.limit,
    after,
    createdGte: stored(query['created[gte]']),
    createdLt: stored(query['created[lt]']),
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
  const request = requestOf(principal, query, listing.of);
  if (wantsCsv(event)) return csvExport(listing, principal, event, request);
  const page = await listing.list(request);
  return json(200, {
    data: page.entries,
    next_cursor: page.next ? encodeCursor(principal, page.next) : null,
  });
}

/**
 * The CSV of a period of at most `MAX_EXPORT_DAYS`: pages read and written one after another, up to
 * `MAX_CSV_BYTES`, RFC 4180 (CRLF, quoted where needed), every cell neutralised against formulas.
 */
async function csvExport<T>(
  listing: BooksListing<T>,
  principal: Principal,
  event: ApiEvent,
  request: BooksRequest,
): Promise<ApiResult> {
  const problem = exportPeriodProblem(request as BooksFilter);
  if (problem) throw new ValidationError([problem]);
  const chunks = [csvLines([Object.fromEntries(listing.columns.map((column) => [column, column]))], listing)];
  let bytes = Buffer.byteLength(chunks[0] as string);
  let after = request.after;
  do {
    const page = await listing.list({ ...request, after, limit: MAX_LIST_LIMIT });
    const text = csvLines(page.entries.map(listing.row), listing);
    chunks.push(text);
    bytes += Buffer.byteLength(text);
    after = page.next;
  } while (after !== undefined && bytes < (listing.maxCsvBytes ?? MAX_CSV_BYTES));
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
    body: chunks.join(''),
  };
}

const csvLines = (rows: Record<string, string>[], listing: { columns: readonly string[] }) =>
  stringify(
    rows.map((row) => listing.columns.map((column) => neutralisedCell(row[column] ?? ''))),
    { record_delimiter: 'windows' },
  );

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
