import { config } from '../config.ts';
import { subscriptionRepository } from '../dependencies.ts';
import { apiHandler } from '../http/api/api-handler.ts';
import { booksResponse } from '../http/api/books-response.ts';
import { subscriptionsListing } from '../http/api/subscription-resources.ts';
import { listSubscriptionsQuery } from '../http/api/subscription-schemas.ts';
import { validate } from '../http/validate.ts';

/** GET /v1/subscriptions: the (account, mode)'s subscriptions, a JSON page or a CSV export (docs/api.md#subscriptions). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listSubscriptionsQuery(), event.queryStringParameters ?? {});
  const listing = subscriptionsListing(
    { subscriptions: subscriptionRepository() },
    principal,
    config().CHECKOUT_BASE,
  );
  return booksResponse(listing, principal, event, query);
});
