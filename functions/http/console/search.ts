import { isPaymentId } from '../../domain/payment.ts';
import type { PersonalDataStore } from '../../ports/personal-data.ts';
import { CLIENT_REFERENCE_PATTERN } from '../api/books-query.ts';
import { html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect } from './page.ts';
import { paymentPath } from './payment-cells.ts';
import type { ConsoleRequest } from './request.ts';

export interface SearchDependencies {
  personalData: Pick<PersonalDataStore, 'findPayment'>;
}

/** The pages an id opens by its prefix alone: each is read by its key there, or answers `404`. */
const PAGE_OF_PREFIX: Readonly<Record<string, string>> = {
  pl: 'links',
  sub: 'subscriptions',
  evt: 'events',
  we: 'webhooks',
};

/**
 * The one search box (docs/console.md#search): what was typed opens what it names, each found by a key, never by a
 * scan: a link, a subscription, an event or an endpoint by its id; a payment by its id while it holds a buyer's details (the
 * index the erasure reads); else the payments whose buyer's reference it is, exactly (the books' reference
 * index). Anything else finds nothing, and the page says what the box finds.
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
  const { session } = request;
  const payment = isPaymentId(query)
    ? await deps.personalData.findPayment(session.account, session.mode, query)
    : undefined;
  if (payment) return consoleRedirect(paymentPath(payment), request.https);
  if (CLIENT_REFERENCE_PATTERN.test(query)) {
    const filter = new URLSearchParams({ client_reference_id: query });
    return consoleRedirect(`${CONSOLE_BASE}/payments?${filter}`, request.https);
  }
  const words = consoleMessages(request.language).search;
  return consolePage({
    status: 404,
    title: words.title,
    https: request.https,
    session,
    language: request.language,
    body: html`<h1>${words.title}</h1><p>${words.nothing(query)}</p><p>${words.finds}</p>`,
  });
}
