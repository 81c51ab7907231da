import type { z } from 'zod';
import type { Principal } from '../../domain/principal.ts';
import type { Subscription } from '../../domain/subscription.ts';
import { subscriptionResource } from '../../domain/subscription-events.ts';
import { SUBSCRIPTION_EXPORT, subscriptionRow } from '../../domain/subscription-exports.ts';
import type { SubscriptionChangeDependencies } from '../../use-cases/subscription-changes.ts';
import { listSubscriptions } from '../../use-cases/subscriptions.ts';
import type { BooksListing } from './books-response.ts';
import type { SubscriptionSchema } from './subscription-response-schemas.ts';

/** The subscription as the API returns it: the documented schema's type (subscription-response-schemas.ts). */
export type SubscriptionApiResource = z.infer<typeof SubscriptionSchema>;

export const toSubscriptionResource = (
  subscription: Subscription,
  checkoutBase: string,
): SubscriptionApiResource => subscriptionResource(subscription, checkoutBase);

/**
 * Where a cancel link's page is (functions/http/checkout/subscription-cancel-views.ts): the token is the only
 * secret, so the path holds nothing else.
 */
export const cancelLinkUrl = (baseUrl: string, token: string): string =>
  `${baseUrl}/subscriptions/cancel/${token}`;

/** An RFC 3339 time as stored (UTC, milliseconds), so that it bounds the listing's sort keys. */
const instant = (time: string | undefined) => (time === undefined ? undefined : new Date(time).toISOString());

/**
 * `GET /v1/subscriptions` for `principal`: JSON pages, or with `Accept: text/csv` the CSV of a period, answered as
 * the books are (books-response.ts: the same cursors, period bounds and CSV rules).
 */
export function subscriptionsListing(
  deps: Pick<SubscriptionChangeDependencies, 'subscriptions'>,
  principal: Principal,
  checkoutBase: string,
): BooksListing<SubscriptionApiResource> {
  const page = async (request: Parameters<typeof listSubscriptions>[2]) => {
    const found = await listSubscriptions(deps, principal, request);
    return {
      entries: found.subscriptions.map((subscription) => toSubscriptionResource(subscription, checkoutBase)),
      next: found.next,
    };
  };
  return {
    of: 'sub',
    name: 'subscriptions',
    period: async (bounds) => ({ createdGte: instant(bounds.gte), createdLt: instant(bounds.lt) }),
    list: page,
    rows: async (request) => {
      const found = await page(request);
      return { entries: found.entries.map(subscriptionRow), next: found.next };
    },
    columns: SUBSCRIPTION_EXPORT,
  };
}
