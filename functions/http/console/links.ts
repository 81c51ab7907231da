import { ValidationError } from '../../domain/errors.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { decodeCursor, encodeCursor } from '../../domain/page-cursor.ts';
import { LINK_STATUSES, type LinkFilter } from '../../domain/payment-link.ts';
import type { BookExportDependencies } from '../../use-cases/book-exports.ts';
import { type BooksDependencies, listBookPayments } from '../../use-cases/books.ts';
import { getPaymentLink } from '../../use-cases/link-transitions.ts';
import { cancelPaymentLink, createPaymentLink, listPaymentLinks } from '../../use-cases/payment-links.ts';
import { listPayments } from '../../use-cases/payments.ts';
import { createRefund, listRefunds, type RefundDependencies, refundIdFor } from '../../use-cases/refunds.ts';
import { type EventLogDependencies, listLinkEvents } from '../../use-cases/webhooks.ts';
import { CLIENT_REFERENCE_PATTERN } from '../api/books-query.ts';
import { listPaymentLinksQuery } from '../api/list-query.ts';
import { createRefundRequest } from '../api/refund-schemas.ts';
import { toResource } from '../api/resources.ts';
import { createPaymentLinkRequest } from '../api/schemas.ts';
import type { Html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { problemOf } from '../problem-types.ts';
import { validate } from '../validate.ts';
import { createRequestOf, newLinkBody, typedDecimal } from './link-form.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect } from './page.ts';
import { connectionNames, paymentPath } from './payment-cells.ts';
import type { ConsoleRequest } from './request.ts';
import { type FieldError, type LinksSearch, linkBody, linksBody } from './views.ts';

export type LinkPageDependencies = Parameters<typeof cancelPaymentLink>[0] &
  RefundDependencies &
  EventLogDependencies &
  BooksDependencies & {
    allowPrivateTargets: boolean;
    /** The connections, whose names the payments show. */
    psps: BookExportDependencies['connections'];
  };

/** Links on one page of the list. */
const PAGE_SIZE = 25;

/** The links pages and their changes; undefined for any other route. */
export async function linkRoutes(
  request: ConsoleRequest,
  deps: LinkPageDependencies,
): Promise<HtmlResult | undefined> {
  const id = request.event.pathParameters?.id ?? '';
  switch (request.route) {
    case 'GET /console/links':
      return linksPage(request, deps);
    case 'GET /console/links/new':
      return newLinkPage(request, new URLSearchParams(), [], 200);
    case 'POST /console/links':
      return createLink(request, deps);
    case 'GET /console/links/{id}':
      return linkPage(request, deps, id, { notice: request.event.queryStringParameters?.notice });
    case 'POST /console/links/{id}/cancel':
      return changeLink(request, deps, id, async () => {
        await cancelPaymentLink(deps, request.session, id);
        await request.audit('link.cancel', id);
        return 'canceled';
      });
    case 'POST /console/links/{id}/refunds': {
      // Back to the payment refunded, where what remains shows.
      const paymentId = request.form.get('payment_id');
      const back = paymentId ? paymentPath({ id: paymentId, link_id: id }) : undefined;
      return changeLink(request, deps, id, () => refund(request, deps, id), back);
    }
    default:
      return undefined;
  }
}

async function linksPage(request: ConsoleRequest, deps: LinkPageDependencies): Promise<HtmlResult> {
  const query = request.event.queryStringParameters ?? {};
  const id = query.id?.trim() || undefined;
  if (id) return consoleRedirect(`${CONSOLE_BASE}/links/${encodeURIComponent(id)}`, request.https);
  const reference = query.reference?.trim() || undefined;
  if (reference) return linksOfReference(request, deps, reference);
  const { filter, search } = linksFilterOf(query, consoleMessages(request.language).links);
  const after = query.after ? decodeCursor(request.session, query.after) : undefined;
  const page = search.problem
    ? { links: [], next: undefined }
    : await listPaymentLinks(deps, request.session, { limit: PAGE_SIZE, after, ...filter });
  const at = deps.now();
  const links = page.links.map((link) => toResource(link, deps.checkoutBase, at));
  return linksListPage(
    request,
    search.problem ? 400 : 200,
    linksBody(links, search, page.next && encodeCursor(request.session, page.next), request.language),
  );
}

/**
 * The list's filter from the console's form: a metadata key and value are checked by the API's own query schema,
 * so the console searches exactly what `GET /v1/payment-links?metadata[key]=value` would.
 */
function linksFilterOf(
  query: Readonly<Record<string, string | undefined>>,
  words: ConsoleMessages['links'],
): { filter: LinkFilter; search: LinksSearch } {
  const status = LINK_STATUSES.find((known) => known === query.status);
  const metadataKey = query.metadata_key?.trim() || undefined;
  const metadataValue = query.metadata_value ?? '';
  const search: LinksSearch = { status, metadataKey, metadataValue };
  if (!metadataKey) {
    const problem = metadataValue
      ? { field: 'metadata_key' as const, text: words.metadataKeyMissing }
      : undefined;
    return { filter: { status }, search: { status, metadataValue, problem } };
  }
  try {
    const { metadata } = validate(listPaymentLinksQuery(), { metadata: { [metadataKey]: metadataValue } });
    return { filter: { status, metadata }, search };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const text = error.errors.map((field) => field.detail).join(' ');
    return { filter: { status }, search: { ...search, problem: { field: 'metadata_key', text } } };
  }
}

const linksListPage = (request: ConsoleRequest, status: number, body: Html) =>
  consolePage({
    status,
    title: consoleMessages(request.language).links.title,
    https: request.https,
    session: request.session,
    path: `${CONSOLE_BASE}/links`,
    language: request.language,
    body,
  });

/**
 * The links whose payments carry a buyer's `client_reference_id`, through the books' own filter (the links
 * themselves keep no reference).
 */
async function linksOfReference(request: ConsoleRequest, deps: LinkPageDependencies, reference: string) {
  const valid = CLIENT_REFERENCE_PATTERN.test(reference);
  const payments = valid
    ? await listBookPayments(deps, request.session, { limit: PAGE_SIZE * 4, clientReferenceId: reference })
    : { entries: [] };
  const ids = [...new Set(payments.entries.map((payment) => payment.link_id))].slice(0, PAGE_SIZE);
  const at = deps.now();
  const links = await Promise.all(ids.map((linkId) => getPaymentLink(deps, request.session, linkId)));
  const problem = valid
    ? undefined
    : { field: 'reference' as const, text: consoleMessages(request.language).links.referenceProblem };
  return linksListPage(
    request,
    valid ? 200 : 400,
    linksBody(
      links.map((link) => toResource(link, deps.checkoutBase, at)),
      { reference, problem },
      undefined,
      request.language,
    ),
  );
}

function newLinkPage(request: ConsoleRequest, values: URLSearchParams, errors: FieldError[], status: number) {
  const words = consoleMessages(request.language).linkForm;
  return consolePage({
    status,
    title: words.title,
    https: request.https,
    session: request.session,
    path: `${CONSOLE_BASE}/links/new`,
    language: request.language,
    body: newLinkBody(request.session, values, errors, words),
  });
}

async function createLink(request: ConsoleRequest, deps: LinkPageDependencies): Promise<HtmlResult> {
  try {
    const input = validate(
      createPaymentLinkRequest(request.session.mode, deps.allowPrivateTargets),
      createRequestOf(request.form, request.language),
    );
    const link = await createPaymentLink(deps, request.session, input);
    await request.audit('link.create', link.id);
    return consoleRedirect(`${CONSOLE_BASE}/links/${link.id}?notice=created`, request.https);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return newLinkPage(request, request.form, error.errors, 422);
  }
}

/** The notice a change's redirect names (`?notice=created`), in the page's language; none for any other name. */
function noticeOf(name: string | undefined, language: PageLanguage): string | undefined {
  const notices = consoleMessages(language).link.notices;
  return name && Object.hasOwn(notices, name) ? notices[name as keyof typeof notices] : undefined;
}

async function linkPage(
  request: ConsoleRequest,
  deps: LinkPageDependencies,
  id: string,
  extra: { notice?: string | undefined; errors?: FieldError[]; status?: number },
): Promise<HtmlResult> {
  const { session, language } = request;
  const link = await getPaymentLink(deps, session, id);
  const [payments, refunds, events, names] = await Promise.all([
    listPayments(deps, session, id),
    listRefunds(deps, session, id),
    listLinkEvents(deps, session, id),
    connectionNames(deps.psps, session),
  ]);
  return consolePage({
    status: extra.status ?? 200,
    title: consoleMessages(language).link.title(id),
    https: request.https,
    session,
    language,
    body: linkBody(
      session,
      {
        link: toResource(link, deps.checkoutBase, deps.now()),
        payments,
        refunds,
        events,
        names,
        notice: noticeOf(extra.notice, language),
        ...(extra.errors && { errors: extra.errors }),
      },
      language,
    ),
  });
}

/**
 * A change to a link: on success back to its page (Post/Redirect/Get) with a notice; a refusal the API would
 * answer with a 4xx (a link already paid, an amount too large) shown on the page with the API's own words.
 */
async function changeLink(
  request: ConsoleRequest,
  deps: LinkPageDependencies,
  id: string,
  change: () => Promise<string>,
  back = `${CONSOLE_BASE}/links/${id}`,
): Promise<HtmlResult> {
  try {
    const notice = await change();
    return consoleRedirect(`${back}?notice=${notice}`, request.https);
  } catch (error) {
    const problem = problemOf(error);
    if (problem.status >= 500 || problem.status === 404) throw error;
    const errors =
      error instanceof ValidationError ? error.errors : [{ pointer: '', detail: problem.detail }];
    return linkPage(request, deps, id, { errors, status: problem.status });
  }
}

async function refund(request: ConsoleRequest, deps: LinkPageDependencies, linkId: string): Promise<string> {
  const { form, session } = request;
  const paymentId = form.get('payment_id') ?? undefined;
  const payment = (await listPayments(deps, session, linkId)).find((candidate) => candidate.id === paymentId);
  const currency = payment?.amount.currency ?? '';
  // The refund dialog's confirmation sends the amount it read and showed back, as the API writes it.
  const typed = form.get('amount');
  const value = form.get('amount_format') === 'api' ? typed : typedDecimal(typed, request.language, currency);
  const reason = form.get('reason') || undefined;
  const detail = form.get('reason_detail')?.trim() || undefined;
  // The API's own request schema: a partial amount is in the currency of the payment it refunds.
  const body = validate(createRefundRequest(), {
    ...(paymentId && { payment_id: paymentId }),
    ...(value && { amount: { value, currency } }),
    ...(reason && { reason }),
    ...(detail && { reason_detail: detail }),
  });
  // The form's own key: the same form sent twice (a double click, a resend) makes one refund.
  const made = await createRefund(
    deps,
    session,
    linkId,
    body?.amount,
    refundIdFor(session, linkId, form.get('idempotency_key') || undefined),
    body?.payment_id,
    body?.reason && { reason: body.reason, reason_detail: body.reason_detail },
  );
  // The audit log says why, as the refund itself does.
  await request.audit('refund.create', made.id, made.reason, { amount: made.amount, of: made.payment_id });
  return 'refunded';
}
