import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import { encodeCursor } from '../../domain/page-cursor.ts';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription.ts';
import type { SubscriptionEndDependencies } from '../../use-cases/subscription-endings.ts';
import { cancelSubscription, subscriptionWithRenewals } from '../../use-cases/subscriptions.ts';
import { booksRequestOf } from '../api/books-response.ts';
import { type SubscriptionApiResource, subscriptionsListing } from '../api/subscription-resources.ts';
import { listSubscriptionsQuery } from '../api/subscription-schemas.ts';
import type { HtmlResult } from '../html-handler.ts';
import { problemOf } from '../problem-types.ts';
import { validate } from '../validate.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect } from './page.ts';
import { connectionNames } from './payment-cells.ts';
import type { ConsoleRequest } from './request.ts';
import {
  cancelConfirmation,
  renewalBody,
  type SubscriptionFilters,
  subscriptionBody,
  subscriptionsBody,
} from './subscription-views.ts';
import type { FieldError } from './views.ts';

/**
 * The account's subscriptions (docs/console.md#subscriptions): the list with the API's filters and cursor, a
 * subscription's page with its renewals and latest failure, and its cancel, now or at the period's end, after a
 * confirmation. Each through the API's own use cases, with the session as the principal.
 */

export type SubscriptionPageDependencies = SubscriptionEndDependencies & {
  /** The connections, whose names the pages show. */
  psps: Parameters<typeof connectionNames>[0];
};

/** Subscriptions on one page of the list. */
const PAGE_SIZE = 25;

export async function subscriptionRoutes(
  request: ConsoleRequest,
  deps: SubscriptionPageDependencies,
): Promise<HtmlResult | undefined> {
  const id = request.event.pathParameters?.id ?? '';
  switch (request.route) {
    case 'GET /console/subscriptions':
      return listPage(request, deps);
    case 'GET /console/subscriptions/{id}':
      return subscriptionPage(request, deps, id);
    case 'GET /console/subscriptions/{id}/payments/{payment_id}':
      return renewalPage(request, deps, id, request.event.pathParameters?.payment_id ?? '');
    case 'GET /console/subscriptions/{id}/cancel':
      return confirmPage(request, deps, id);
    case 'POST /console/subscriptions/{id}/cancel':
      return cancel(request, deps, id);
    default:
      return undefined;
  }
}

/** The list's filters as the form sent them: the API's own names, empty ones left out. */
function filtersOf(request: ConsoleRequest): SubscriptionFilters {
  const query = request.event.queryStringParameters ?? {};
  const value = (name: string) => query[name]?.trim() || undefined;
  return { status: value('status'), link_id: value('link_id'), connection_id: value('connection_id') };
}

async function listPage(request: ConsoleRequest, deps: SubscriptionPageDependencies): Promise<HtmlResult> {
  const { session, language } = request;
  const filters = filtersOf(request);
  const cursor = request.event.queryStringParameters?.cursor || undefined;
  let errors: FieldError[] = [];
  let page: { entries: SubscriptionApiResource[]; next: string | undefined } = {
    entries: [],
    next: undefined,
  };
  try {
    // The API's query schema and cursor: the list finds exactly what `GET /v1/subscriptions` would.
    const query = validate(listSubscriptionsQuery(), {
      ...defined(filters),
      cursor,
      limit: String(PAGE_SIZE),
    });
    const listing = subscriptionsListing(deps, session, deps.checkoutBase);
    const found = await listing.list(await booksRequestOf(listing, session, query));
    page = found;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors = error.errors;
  }
  const names = await connectionNames(deps.psps, session);
  return consolePage({
    status: errors.length ? 400 : 200,
    title: consoleMessages(language).subscription.title,
    https: request.https,
    session,
    path: `${CONSOLE_BASE}/subscriptions`,
    language,
    body: subscriptionsBody({
      subscriptions: page.entries,
      filters,
      errors,
      names,
      next: page.next && encodeCursor(session, page.next),
      statuses: SUBSCRIPTION_STATUSES,
      language,
    }),
  });
}

const defined = (filters: SubscriptionFilters) =>
  Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));

async function subscriptionPage(
  request: ConsoleRequest,
  deps: SubscriptionPageDependencies,
  id: string,
  problem?: { status: number; detail: string },
): Promise<HtmlResult> {
  const { session, language } = request;
  const [{ subscription, renewals }, names] = await Promise.all([
    subscriptionWithRenewals(deps, session, id),
    connectionNames(deps.psps, session),
  ]);
  const notice = request.event.queryStringParameters?.notice;
  return consolePage({
    status: problem?.status ?? 200,
    title: consoleMessages(language).subscription.titleOf(subscription.id),
    https: request.https,
    session,
    path: `${CONSOLE_BASE}/subscriptions`,
    language,
    body: subscriptionBody({
      subscription,
      renewals,
      names,
      session,
      language,
      notice,
      problem: problem?.detail,
    }),
  });
}

/** A renewal's page: one payment of the subscription's, or `404`. */
async function renewalPage(
  request: ConsoleRequest,
  deps: SubscriptionPageDependencies,
  id: string,
  paymentId: string,
): Promise<HtmlResult> {
  const { session, language } = request;
  const [{ subscription, renewals }, names] = await Promise.all([
    subscriptionWithRenewals(deps, session, id),
    connectionNames(deps.psps, session),
  ]);
  const renewal = renewals.find((payment) => payment.id === paymentId);
  if (!renewal) throw new NotFoundError(`No payment ${paymentId} of subscription ${id}.`);
  return consolePage({
    title: consoleMessages(language).payment.title(renewal.id),
    https: request.https,
    session,
    path: `${CONSOLE_BASE}/subscriptions`,
    language,
    body: renewalBody(subscription, renewal, names, language),
  });
}

/** The cancel's confirmation: what it does, in words; only its button cancels (a GET changes nothing). */
async function confirmPage(
  request: ConsoleRequest,
  deps: SubscriptionPageDependencies,
  id: string,
): Promise<HtmlResult> {
  const { session, language } = request;
  const { subscription } = await subscriptionWithRenewals(deps, session, id);
  const atPeriodEnd = request.event.queryStringParameters?.when === 'period_end';
  return consolePage({
    title: consoleMessages(language).subscription.cancel,
    https: request.https,
    session,
    path: `${CONSOLE_BASE}/subscriptions`,
    language,
    body: cancelConfirmation(subscription, atPeriodEnd, session, language),
  });
}

/**
 * The cancel, as `POST /v1/subscriptions/{id}/cancel` makes it (`reason: requested`); then the subscription's
 * page. A refusal of the use case (an ended subscription) is shown there in its words.
 */
async function cancel(request: ConsoleRequest, deps: SubscriptionPageDependencies, id: string) {
  const atPeriodEnd = request.form.get('at_period_end') === 'true';
  try {
    const after = await cancelSubscription(deps, request.session, id, { atPeriodEnd, reason: 'requested' });
    await request.audit('subscription.cancel', id);
    const notice = after.status === 'canceled' ? 'canceled' : 'ending';
    return consoleRedirect(`${CONSOLE_BASE}/subscriptions/${id}?notice=${notice}`, request.https);
  } catch (error) {
    const problem = problemOf(error);
    if (problem.status >= 500 || problem.status === 404) throw error;
    return subscriptionPage(request, deps, id, problem);
  }
}
