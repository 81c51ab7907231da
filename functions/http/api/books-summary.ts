import { encodeCursor } from '../../domain/page-cursor.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AccountSettingsRepository } from '../../ports/personal-data.ts';
import { booksPeriod, type PeriodBounds, summarizeBookPayments } from '../../use-cases/book-exports.ts';
import type { BooksDependencies } from '../../use-cases/books.ts';
import { type ApiResult, json } from './api-handler.ts';
import type { PaymentSummaryResource } from './books-resources.ts';
import { type BooksQueryParameters, booksRequestOf } from './books-response.ts';

/**
 * `GET /v1/payments/summary`: the totals per currency of what `GET /v1/payments` lists with the same filters, the
 * period as the books compared it, and where a period too long for one request stopped (docs/api.md#payment-totals).
 */
export async function paymentSummaryResponse(
  deps: BooksDependencies & { accountSettings: AccountSettingsRepository },
  principal: Principal,
  query: BooksQueryParameters,
): Promise<ApiResult> {
  const listing = {
    of: 'pay' as const,
    period: (bounds: PeriodBounds) => booksPeriod({ settings: deps.accountSettings }, principal, bounds),
  };
  const request = await booksRequestOf(listing, principal, query);
  const summary = await summarizeBookPayments(deps, principal, request);
  const resource: PaymentSummaryResource = {
    object: 'payment_summary',
    created_gte: request.createdGte ?? null,
    created_lt: request.createdLt ?? null,
    currencies: summary.currencies,
    next_cursor: summary.next ? encodeCursor(principal, summary.next) : null,
  };
  return json(200, resource);
}
