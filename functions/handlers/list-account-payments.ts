import { books, linkRepository } from '../dependencies.ts';
import { PAYMENT_COLUMNS, paymentRow } from '../domain/books.ts';
import { apiHandler } from '../http/api/api-handler.ts';
import { listBookPaymentsQuery } from '../http/api/books-query.ts';
import { booksResponse } from '../http/api/books-response.ts';
import { validate } from '../http/validate.ts';
import { listBookPayments } from '../use-cases/books.ts';

/** GET /v1/payments: the (account, mode)'s payments, a JSON page or a CSV export (docs/api.md#books). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listBookPaymentsQuery(), event.queryStringParameters ?? {});
  const deps = { books: books(), links: linkRepository() };
  return booksResponse(
    {
      of: 'pay',
      name: 'payments',
      list: (request) => listBookPayments(deps, principal, request),
      columns: PAYMENT_COLUMNS,
      row: paymentRow,
    },
    principal,
    event,
    query,
  );
});
