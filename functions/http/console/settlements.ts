import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import { DEFAULT_TIME_ZONE, presetPeriods } from '../../domain/time-zones.ts';
import type { SettlementRepository } from '../../ports/settlements.ts';
import {
  getSettlement,
  listSettlements,
  type SettlementResource,
  type SettlementsQuery,
} from '../../use-cases/settlement-reads.ts';
import { MAX_LIST_LIMIT } from '../api/list-query.ts';
import { settlementItemsCsv, settlementsCsv } from '../api/settlement-csv.ts';
import { listSettlementsQuery } from '../api/settlement-query.ts';
import type { HtmlResult } from '../html-handler.ts';
import { validate } from '../validate.ts';
import type { BooksPageDependencies } from './books.ts';
import { presetLinks } from './books-views.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage } from './page.ts';
import { connectionNames } from './payment-cells.ts';
import type { ConsoleRequest } from './request.ts';
import { type SettlementFilters, settlementBody, settlementsBody } from './settlement-views.ts';
import type { FieldError } from './views.ts';

/**
 * The PSPs' payouts matched to the books (docs/console.md#settlements): the list with the API's filters and cursor,
 * a settlement's page with its lines, and their CSV as the API writes it, a download audited as exports are. Read
 * through the API's own use cases, with the session as the principal.
 */

export type SettlementPageDependencies = Pick<BooksPageDependencies, 'psps' | 'accountSettings' | 'now'> & {
  settlements: Pick<SettlementRepository, 'list' | 'get'>;
};

/** Settlements on one page of the list. */
const PAGE_SIZE = 25;
/** Settlements one download holds at most: ten of the API's largest pages. */
export const MAX_SETTLEMENTS_EXPORTED = 10 * MAX_LIST_LIMIT;

const PATH = `${CONSOLE_BASE}/settlements`;

export async function settlementRoutes(
  request: ConsoleRequest,
  deps: SettlementPageDependencies,
): Promise<HtmlResult | undefined> {
  const id = request.event.pathParameters?.id ?? '';
  switch (request.route) {
    case 'GET /console/settlements':
      return listPage(request, deps, filtersOf(request.event.queryStringParameters ?? {}));
    case 'POST /console/settlements/export':
      return exportList(request, deps);
    case 'GET /console/settlements/{id}':
      return settlementPage(request, deps, id);
    case 'POST /console/settlements/{id}/export':
      return exportLines(request, deps, id);
    default:
      return undefined;
  }
}

function filtersOf(source: Record<string, string | undefined>): SettlementFilters {
  const value = (name: string) => source[name]?.trim() || undefined;
  return { from: value('from'), to: value('to'), connection_id: value('connection_id') };
}

/** The date after a date, so that the form's "to" day counts in full. */
const dayAfter = (date: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(date)
    ? new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
    : date;

/** The form's values as the API's query, checked by its schema: the list finds what `GET /v1/settlements` would. */
function queryOf(filters: SettlementFilters, limit: number, cursor: string | undefined): SettlementsQuery {
  const entries: [string, string | undefined][] = [
    ['arrival_date[gte]', filters.from],
    ['arrival_date[lt]', filters.to && dayAfter(filters.to)],
    ['connection_id', filters.connection_id],
    ['cursor', cursor],
    ['limit', String(limit)],
  ];
  return validate(
    listSettlementsQuery(),
    Object.fromEntries(entries.filter((entry): entry is [string, string] => Boolean(entry[1]))),
  );
}

async function listPage(
  request: ConsoleRequest,
  deps: SettlementPageDependencies,
  filters: SettlementFilters,
  refused: FieldError[] = [],
): Promise<HtmlResult> {
  const { session, language } = request;
  const cursor = request.event.queryStringParameters?.cursor || undefined;
  let errors = refused;
  let page: { data: SettlementResource[]; next_cursor: string | null } = { data: [], next_cursor: null };
  try {
    page = await listSettlements(deps.settlements, session, queryOf(filters, PAGE_SIZE, cursor));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors = [...errors, ...error.errors];
  }
  const [names, settings] = await Promise.all([
    connectionNames(deps.psps, session),
    deps.accountSettings.get(session.account, session.mode),
  ]);
  const periods = presetPeriods(deps.now(), settings?.time_zone ?? DEFAULT_TIME_ZONE);
  return consolePage({
    status: errors.length ? 400 : 200,
    title: consoleMessages(language).settlement.title,
    https: request.https,
    session,
    path: PATH,
    language,
    body: settlementsBody({
      settlements: page.data,
      filters,
      errors,
      names,
      presets: presetLinks(PATH, filters, periods, language),
      next: page.next_cursor ?? undefined,
      session,
      language,
    }),
  });
}

async function settlementPage(
  request: ConsoleRequest,
  deps: SettlementPageDependencies,
  id: string,
): Promise<HtmlResult> {
  const { session, language } = request;
  const [settlement, names] = await Promise.all([
    getSettlement(deps.settlements, session, id),
    connectionNames(deps.psps, session),
  ]);
  if (!settlement) throw new NotFoundError(`No settlement ${id}.`);
  return consolePage({
    title: consoleMessages(language).settlement.titleOf(settlement.id),
    https: request.https,
    session,
    path: PATH,
    language,
    body: settlementBody({ settlement, names, session, language }),
  });
}

/**
 * Every settlement the list's filters select, as the API's CSV writes a page of them; more than a download holds
 * is refused at the dates rather than cut short.
 */
async function exportList(request: ConsoleRequest, deps: SettlementPageDependencies): Promise<HtmlResult> {
  const filters = filtersOf(Object.fromEntries(request.form));
  const selected: SettlementResource[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await listSettlements(
        deps.settlements,
        request.session,
        queryOf(filters, MAX_LIST_LIMIT, cursor),
      );
      selected.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && selected.length < MAX_SETTLEMENTS_EXPORTED);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return listPage(request, deps, filters);
  }
  if (cursor) {
    const detail = consoleMessages(request.language).settlement.tooMany(MAX_SETTLEMENTS_EXPORTED);
    return listPage(request, deps, filters, [{ pointer: '/arrival_date[gte]', detail }]);
  }
  await request.audit('export.read', `settlements ${filters.from ?? '…'} to ${filters.to ?? '…'}`);
  return settlementsCsv(selected, request.event, null);
}

/** A settlement's lines as the API's CSV of it (`GET /v1/settlements/{id}` with `Accept: text/csv`). */
async function exportLines(
  request: ConsoleRequest,
  deps: SettlementPageDependencies,
  id: string,
): Promise<HtmlResult> {
  const settlement = await getSettlement(deps.settlements, request.session, id);
  if (!settlement) throw new NotFoundError(`No settlement ${id}.`);
  await request.audit('export.read', id);
  return settlementItemsCsv(settlement);
}
