import {
  accountSettingsRepository,
  books,
  linkRepository,
  pspConnectionRepository,
} from '../dependencies.ts';
import { apiHandler } from '../http/api/api-handler.ts';
import { refundsListing } from '../http/api/books-listings.ts';
import { listBookRefundsQuery } from '../http/api/books-query.ts';
import { booksResponse } from '../http/api/books-response.ts';
import { validate } from '../http/validate.ts';

/** GET /v1/refunds: the (account, mode)'s refunds, a JSON page or a CSV export (docs/api.md#books). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listBookRefundsQuery(), event.queryStringParameters ?? {});
  const deps = {
    books: books(),
    links: linkRepository(),
    connections: pspConnectionRepository(),
    accountSettings: accountSettingsRepository(),
  };
  return booksResponse(refundsListing(deps, principal), principal, event, query);
});
