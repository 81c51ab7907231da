import type { BookPayment, BookRefund } from '../../domain/books.ts';
import { ValidationError } from '../../domain/errors.ts';
import { PAYMENT_STATES } from '../../domain/payment.ts';
import { REFUND_STATUSES } from '../../domain/payment-link.ts';
import type { PaymentRepository } from '../../ports/payment-repository.ts';
import type { AccountSettingsRepository, PersonalDataStore } from '../../ports/personal-data.ts';
import type { BookExportDependencies } from '../../use-cases/book-exports.ts';
import { buyerAttempts, eraseBuyerOnRequest } from '../../use-cases/personal-data.ts';
import { paymentsListing, refundsListing } from '../api/books-listings.ts';
import { listBookPaymentsQuery, listBookRefundsQuery } from '../api/books-query.ts';
import { type BooksListing, type BooksQueryParameters, booksResponse } from '../api/books-response.ts';
import type { HtmlResult } from '../html-handler.ts';
import { validate } from '../validate.ts';
import {
  type BooksFormValues,
  bookPaymentsTable,
  bookRefundsTable,
  booksListBody,
  eraseConfirmBody,
  exportBody,
} from './books-views.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect } from './page.ts';
import type { ConsoleRequest } from './request.ts';
import type { FieldError } from './views.ts';

export type BooksPageDependencies = Omit<BookExportDependencies, 'connections'> & {
  /** The connections, whose names the exports show. */
  psps: BookExportDependencies['connections'];
  payments: PaymentRepository;
  personalData: PersonalDataStore;
  /** The retention settings the erasure reads (`settings` is the checkout's, in the console). */
  accountSettings: AccountSettingsRepository;
  now: () => Date;
};

/** Entries on one page of the payments and refunds lists. */
const PAGE_SIZE = 25;

/** The account-wide payments and refunds, their CSV export and the erasure of a buyer's details. */
export async function booksRoutes(
  request: ConsoleRequest,
  deps: BooksPageDependencies,
): Promise<HtmlResult | undefined> {
  switch (request.route) {
    case 'GET /console/payments':
      return listPage(request, deps, 'payments');
    case 'GET /console/refunds':
      return listPage(request, deps, 'refunds');
    case 'GET /console/exports':
      return exportPage(request, {}, [], 200);
    case 'POST /console/exports':
      return exportCsv(request, deps);
    case 'GET /console/payments/{id}/erase':
      return eraseConfirmPage(request, deps, request.event.pathParameters?.id ?? '');
    case 'POST /console/payments/{id}/erase':
      return erase(request, deps, request.event.pathParameters?.id ?? '');
    default:
      return undefined;
  }
}

const isDate = (value: string | undefined): value is string => /^\d{4}-\d{2}-\d{2}$/.test(value ?? '');

/** The date after a date, so that the form's "to" date counts in full. */
const dayAfter = (date: string) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/**
 * The form's values as the API's query: its dates become `created[gte]`/`created[lt]`, days of the account's time
 * zone as the API counts them; empty fields go.
 */
function queryOf(values: BooksFormValues, cursor: string | undefined): Record<string, string> {
  const { from, to, ...filters } = values;
  const entries: [string, string | undefined][] = [
    ['created[gte]', from],
    ['created[lt]', isDate(to) ? dayAfter(to) : to],
    ...Object.entries(filters),
    ['cursor', cursor],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => Boolean(entry[1]?.trim())));
}

function valuesOf(source: { get(name: string): string | null | undefined }): BooksFormValues {
  const value = (name: string) => source.get(name)?.trim() || undefined;
  return {
    from: value('from'),
    to: value('to'),
    status: value('status'),
    connection_id: value('connection_id'),
    link_id: value('link_id'),
    client_reference_id: value('client_reference_id'),
  };
}

const queryValues = (request: ConsoleRequest) =>
  new URLSearchParams(
    Object.entries(request.event.queryStringParameters ?? {}).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, value] as [string, string]],
    ),
  );

/** The listing of the API's handlers: the same use cases, period, columns and rows. */
function listingOf(deps: BooksPageDependencies, request: ConsoleRequest, of: 'payments' | 'refunds') {
  const books = { ...deps, connections: deps.psps };
  return of === 'payments' ? paymentsListing(books, request.session) : refundsListing(books, request.session);
}

const schemaOf = (of: 'payments' | 'refunds') =>
  of === 'payments' ? listBookPaymentsQuery() : listBookRefundsQuery();

/**
 * The API's own answer to the same query (`booksResponse`), asked for JSON or CSV: one path for the filters,
 * the cursor, the period rule and the CSV writer.
 */
function booksAnswer(
  request: ConsoleRequest,
  deps: BooksPageDependencies,
  of: 'payments' | 'refunds',
  query: Record<string, string>,
  accept: string,
) {
  const parameters = validate(schemaOf(of), query) as BooksQueryParameters;
  const event = {
    ...request.event,
    rawPath: `/v1/${of}`,
    headers: { ...request.event.headers, accept },
    queryStringParameters: query,
  };
  return booksResponse(
    listingOf(deps, request, of) as BooksListing<unknown>,
    request.session,
    event,
    parameters,
  );
}

async function listPage(request: ConsoleRequest, deps: BooksPageDependencies, of: 'payments' | 'refunds') {
  const source = queryValues(request);
  const values = valuesOf(source);
  let errors: FieldError[] = [];
  // The API's JSON page as it is sent: the entries are the use case's, serialised once.
  let page: { data: unknown[]; next_cursor: string | null } = { data: [], next_cursor: null };
  try {
    const answer = await booksAnswer(
      request,
      deps,
      of,
      { ...queryOf(values, source.get('cursor') ?? undefined), limit: String(PAGE_SIZE) },
      'application/json',
    );
    page = JSON.parse(String(answer.body));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors = error.errors;
  }
  const payments = of === 'payments';
  const { language } = request;
  const title = consoleMessages(language).books[of];
  return consolePage({
    status: errors.length ? 400 : 200,
    title,
    https: request.https,
    session: request.session,
    path: `${CONSOLE_BASE}/${of}`,
    language,
    body: booksListBody({
      title,
      path: `${CONSOLE_BASE}/${of}`,
      values,
      statuses: payments ? PAYMENT_STATES : REFUND_STATUSES,
      errors,
      table: payments
        ? bookPaymentsTable(page.data as BookPayment[], request.session, language)
        : bookRefundsTable(page.data as BookRefund[], language),
      next: page.next_cursor ?? undefined,
      language,
    }),
  });
}

function exportPage(
  request: ConsoleRequest,
  values: BooksFormValues & { of?: string },
  errors: FieldError[],
  status: number,
) {
  const statuses = values.of === 'refunds' ? REFUND_STATUSES : PAYMENT_STATES;
  return consolePage({
    status,
    title: consoleMessages(request.language).books.exports,
    https: request.https,
    session: request.session,
    path: `${CONSOLE_BASE}/exports`,
    language: request.language,
    body: exportBody(request.session, values, statuses, errors, request.language),
  });
}

/** The CSV the API gives for the same period and filters, as a download; audited once it is made. */
async function exportCsv(request: ConsoleRequest, deps: BooksPageDependencies): Promise<HtmlResult> {
  const of = request.form.get('of') === 'refunds' ? 'refunds' : 'payments';
  const values = valuesOf(request.form);
  // An export needs its period: the API refuses a CSV without one, and so does the form, at its fields.
  const query = queryOf(values, undefined);
  try {
    const answer = await booksAnswer(request, deps, of, query, 'text/csv');
    await request.audit('export.read', `${of} ${query['created[gte]']} to ${query['created[lt]']}`);
    return answer;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return exportPage(request, { ...values, of }, error.errors, 400);
  }
}

/** What an erasure of the payment's buyer would erase (`buyerAttempts`), asked to be confirmed. */
async function eraseConfirmPage(request: ConsoleRequest, deps: BooksPageDependencies, paymentId: string) {
  const attempts = await buyerAttempts(deps, request.session, paymentId);
  return consolePage({
    title: consoleMessages(request.language).books.eraseTitle,
    https: request.https,
    session: request.session,
    path: `${CONSOLE_BASE}/payments`,
    language: request.language,
    body: eraseConfirmBody(request.session, attempts, request.language),
  });
}

async function erase(request: ConsoleRequest, deps: BooksPageDependencies, paymentId: string) {
  if (request.form.get('confirm') !== 'yes') {
    return consoleRedirect(`${CONSOLE_BASE}/payments/${encodeURIComponent(paymentId)}/erase`, request.https);
  }
  await eraseBuyerOnRequest(
    {
      payments: deps.payments,
      personalData: deps.personalData,
      settings: deps.accountSettings,
      now: deps.now,
    },
    request.session,
    paymentId,
  );
  await request.audit('buyer.erase', paymentId);
  return consoleRedirect(`${CONSOLE_BASE}/payments`, request.https);
}
