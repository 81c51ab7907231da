import { PAYMENT_EXPORT, REFUND_EXPORT } from '../../domain/book-exports.ts';
import type { BookPayment, BookRefund } from '../../domain/books.ts';
import type { Principal } from '../../domain/principal.ts';
import type { AccountSettingsRepository } from '../../ports/personal-data.ts';
import {
  type BookExportDependencies,
  booksPeriod,
  exportBookPayments,
  exportBookRefunds,
  newExportReads,
} from '../../use-cases/book-exports.ts';
import { listBookPayments, listBookRefunds } from '../../use-cases/books.ts';
import type { BooksListing } from './books-response.ts';

/** What the books' listings read: the listings, links and connections, and the account's time zone. */
export type BookListingDependencies = BookExportDependencies & { accountSettings: AccountSettingsRepository };

/**
 * `GET /v1/payments` for `principal`, as the API and the console both answer it: the same use cases, period,
 * columns and rows. One per request: its export reads each link once.
 */
export function paymentsListing(
  deps: BookListingDependencies,
  principal: Principal,
): BooksListing<BookPayment> {
  const reads = newExportReads();
  return {
    of: 'pay',
    name: 'payments',
    period: (bounds) => booksPeriod({ settings: deps.accountSettings }, principal, bounds),
    list: (request) => listBookPayments(deps, principal, request),
    rows: (request) => exportBookPayments(deps, principal, request, reads),
    columns: PAYMENT_EXPORT,
  };
}

/** `GET /v1/refunds` for `principal` (as `paymentsListing`). */
export function refundsListing(
  deps: BookListingDependencies,
  principal: Principal,
): BooksListing<BookRefund> {
  const reads = newExportReads();
  return {
    of: 're',
    name: 'refunds',
    period: (bounds) => booksPeriod({ settings: deps.accountSettings }, principal, bounds),
    list: (request) => listBookRefunds(deps, principal, request),
    rows: (request) => exportBookRefunds(deps, principal, request, reads),
    columns: REFUND_EXPORT,
  };
}
