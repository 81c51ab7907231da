import { accountSettingsRepository, books, linkRepository } from '../dependencies.ts';
import { apiHandler } from '../http/api/api-handler.ts';
import { paymentSummaryQuery } from '../http/api/books-query.ts';
import { paymentSummaryResponse } from '../http/api/books-summary.ts';
import { validate } from '../http/validate.ts';

/** GET /v1/payments/summary: the totals per currency of the payments the same filters list (docs/api.md#payment-totals). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(paymentSummaryQuery(), event.queryStringParameters ?? {});
  const deps = { books: books(), links: linkRepository(), accountSettings: accountSettingsRepository() };
  return paymentSummaryResponse(deps, principal, query);
});
