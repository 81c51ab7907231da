import {
  accountSettingsRepository,
  books,
  linkRepository,
  pspConnectionRepository,
} from '../dependencies.ts';
import { apiHandler } from '../http/api/api-handler.ts';
import { paymentsListing } from '../http/api/books-listings.ts';
import { listBookPaymentsQuery } from '../http/api/books-query.ts';
import { booksResponse } from '../http/api/books-response.ts';
import { validate } from '../http/validate.ts';

/** GET /v1/payments: the (account, mode)'s payments, a JSON page or a CSV export (docs/api.md#books). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listBookPaymentsQuery(), event.queryStringParameters ?? {});
  const deps = {
    books: books(),
    links: linkRepository(),
    connections: pspConnectionRepository(),
    accountSettings: accountSettingsRepository(),
  };
  return booksResponse(paymentsListing(deps, principal), principal, event, query);
});
