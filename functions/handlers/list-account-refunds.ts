import { books, linkRepository } from '../dependencies.ts';
import { REFUND_COLUMNS, refundRow } from '../domain/books.ts';
import { apiHandler } from '../http/api/api-handler.ts';
import { listBookRefundsQuery } from '../http/api/books-query.ts';
import { booksResponse } from '../http/api/books-response.ts';
import { validate } from '../http/validate.ts';
import { listBookRefunds } from '../use-cases/books.ts';

/** GET /v1/refunds: the (account, mode)'s refunds, a JSON page or a CSV export (docs/api.md#books). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listBookRefundsQuery(), event.queryStringParameters ?? {});
  const deps = { books: books(), links: linkRepository() };
  return booksResponse(
    {
      of: 're',
      name: 'refunds',
      list: (request) => listBookRefunds(deps, principal, request),
      columns: REFUND_COLUMNS,
      row: refundRow,
    },
    principal,
    event,
    query,
  );
});
