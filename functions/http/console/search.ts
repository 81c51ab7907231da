import type { PageLanguage } from '../../domain/locale.ts';
import type { Amount } from '../../domain/money.ts';
import { effectiveStatus } from '../../domain/payment-link.ts';
import { MAX_SEARCH_RESULTS, searchTerms } from '../../domain/search.ts';
import type { SearchIndex, SearchResult } from '../../ports/search-index.ts';
import { formatAmount, type Html, html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, when } from './page.ts';
import { paymentPath } from './payment-cells.ts';
import type { ConsoleRequest } from './request.ts';

export interface SearchDependencies {
  search: SearchIndex;
  now: () => Date;
}

/** The pages an id opens by its prefix alone: each is read by its key there, or answers `404`. */
const PAGE_OF_PREFIX: Readonly<Record<string, string>> = {
  pl: 'links',
  sub: 'subscriptions',
  evt: 'events',
  we: 'webhooks',
};

/** One row of the results: what it is, its page, its amount, its status in words, when it was made. */
interface Row {
  type: SearchResult['type'];
  id: string;
  path: string;
  amount: Amount | null | undefined;
  status: string;
  created_at: string;
}

function rowOf(result: SearchResult, language: PageLanguage, now: Date): Row {
  const { status } = consoleMessages(language);
  if (result.type === 'payment') {
    const { payment } = result;
    const { id, amount, created_at } = payment;
    return {
      type: 'payment',
      id,
      path: paymentPath(payment),
      amount,
      status: status.payment[payment.status],
      created_at,
    };
  }
  if (result.type === 'refund') {
    const { refund } = result;
    const path = paymentPath({ id: refund.payment_id, link_id: refund.payment_link_id });
    const { id, amount, created_at } = refund;
    return { type: 'refund', id, path, amount, status: status.refund[refund.status], created_at };
  }
  const { link } = result;
  const { id, amount, created_at } = link;
  const linkStatus = status.link[effectiveStatus(link, now)];
  return { type: 'link', id, path: `${CONSOLE_BASE}/links/${id}`, amount, status: linkStatus, created_at };
}

function resultsTable(rows: readonly Row[], language: PageLanguage): Html {
  const { search: words, columns } = consoleMessages(language);
  const cells = rows.map(
    (row) => html`<tr><td>${words.types[row.type]}</td><td><a href="${row.path}">${row.id}</a></td>
<td class="nowrap">${row.amount ? formatAmount(row.amount, language) : '–'}</td><td>${row.status}</td><td class="nowrap">${when(row.created_at)}</td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${words.type}</th><th scope="col">${words.id}</th><th scope="col">${columns.amount}</th><th scope="col">${columns.status}</th><th scope="col">${columns.created}</th></tr></thead>
<tbody>${cells}</tbody></table>`;
}

/**
 * The one search box (docs/console.md#search): a link's, subscription's, event's or endpoint's id opens its page (read
 * there by its key); anything else is looked up in the search index (payments, refunds and links by their tokens,
 * never a scan), and a payment's or refund's id found opens its page; else the results, newest first.
 */
export async function searchRoutes(
  request: ConsoleRequest,
  deps: SearchDependencies,
): Promise<HtmlResult | undefined> {
  if (request.route !== 'GET /console/search') return undefined;
  const query = request.event.queryStringParameters?.q?.trim() ?? '';
  const prefix = /^([a-z]+)_[0-9A-Za-z]+$/.exec(query)?.[1] ?? '';
  const page = PAGE_OF_PREFIX[prefix];
  if (page) return consoleRedirect(`${CONSOLE_BASE}/${page}/${query}`, request.https);
  const { session, language } = request;
  const terms = searchTerms(query);
  const results = terms.length
    ? await deps.search.find(session.account, session.mode, terms, MAX_SEARCH_RESULTS)
    : [];
  const now = deps.now();
  const rows = results.map((result) => rowOf(result, language, now));
  const [only] = rows;
  if (rows.length === 1 && only && terms[0]?.kind === 'id') return consoleRedirect(only.path, request.https);
  const words = consoleMessages(language).search;
  const body = rows.length
    ? html`<h1>${words.title}</h1><p>${words.found(rows.length, query)}</p>${resultsTable(rows, language)}${rows.length === MAX_SEARCH_RESULTS ? html`<p>${words.more}</p>` : ''}<p class="muted">${words.finds}</p>`
    : html`<h1>${words.title}</h1><p>${words.nothing(query)}</p><p>${words.finds}</p>`;
  return consolePage({
    status: rows.length ? 200 : 404,
    title: words.title,
    https: request.https,
    session,
    language,
    body,
  });
}
