import { z } from 'zod';
import { MAX_EXPORT_DAYS } from '../../functions/domain/books.ts';
import { accountSettingsRequest } from '../../functions/http/api/account-settings-schemas.ts';
import {
  listBookPaymentsQuery,
  listBookRefundsQuery,
  paymentSummaryQuery,
} from '../../functions/http/api/books-query.ts';
import { MAX_CSV_BYTES } from '../../functions/http/api/books-response.ts';
import {
  AccountSettingsSchema,
  BookPaymentListSchema,
  BookRefundListSchema,
  BuyerErasureSchema,
  PaymentSummarySchema,
} from '../../functions/http/api/books-response-schemas.ts';
import { publicId } from '../../functions/http/api/response-schemas.ts';
import { listSettlementsQuery } from '../../functions/http/api/settlement-query.ts';
import {
  SettlementListSchema,
  SettlementWithItemsSchema,
} from '../../functions/http/api/settlement-response-schemas.ts';
import { MAX_SUMMARY_PAGES, SUMMARY_PAGE_SIZE } from '../../functions/use-cases/book-exports.ts';
import { PAYOUT_READ_INTERVAL_MS } from '../../functions/use-cases/settlements.ts';
import type { OperationSpec } from './operation-spec.ts';

const nextLink = {
  Link: {
    description:
      'CSV only: present when the export stopped at its size bound before the period ended; `rel="next"` names the same request continued.',
    schema: { type: 'string', maxLength: 2048 },
  },
} as const;

const books = (what: 'payments' | 'refunds') =>
  `The API key's (account, mode) ${what}, newest first, filtered, one page at a time (docs/api.md#books). Filters combine. \`link_id\` and \`client_reference_id\` read only their own entries; \`status\` and \`connection_id\` filter what is read, so a page may hold fewer than \`limit\` (even none) with a \`next_cursor\` to continue. A date in \`created[gte]\` or \`created[lt]\` is the start of that day in the account's \`time_zone\`. With \`Accept: text/csv\` the same query answers CSV (RFC 4180): \`created[gte]\` and \`created[lt]\` are then required, at most ${MAX_EXPORT_DAYS} days apart, \`columns\` picks and orders the columns, and a longer answer than ${MAX_CSV_BYTES} bytes ends with a \`Link: rel="next"\` header (docs/api.md#csv-exports).`;

const csv = (columns: string) => ({
  description: `A header row (${columns}), then one row per entry; amounts in major units as decimal strings; a cell a spreadsheet would run as a formula is prefixed with \`'\`.`,
  maxBytes: MAX_CSV_BYTES,
});

/** The books and personal data's operations, in the order of docs/api.md (after the payment links'). */
export const booksOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/v1/payments',
    operationId: 'listAccountPayments',
    summary: 'List payments',
    description: books('payments'),
    auth: true,
    query: listBookPaymentsQuery(),
    success: {
      status: 200,
      description: 'A page of payments, or the CSV of the period.',
      schema: BookPaymentListSchema,
      headers: nextLink,
      csv: csv(
        'by default `id`, `created_at`, … `connection_name`, then `metadata.<key>` and `custom_field.<key>` for each key present; or the `columns` asked: docs/api.md#csv-exports',
      ),
    },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/payments/summary',
    operationId: 'getPaymentSummary',
    summary: 'Total payments per currency',
    description: `The totals per currency of the payments \`GET /v1/payments\` lists with the same filters: how many succeeded, what they charged (\`gross\`), what their refunds gave back, their fees, and what stays (\`net\`), so that a CSV export of the period adds up to them (docs/api.md#payment-totals). Only succeeded payments count. Read from the listing in pages of ${SUMMARY_PAGE_SIZE}, at most ${MAX_SUMMARY_PAGES} per request: a longer period answers the totals of the ${SUMMARY_PAGE_SIZE * MAX_SUMMARY_PAGES} newest payments read with a \`next_cursor\`, and the same request with that \`cursor\` gives the rest's.`,
    auth: true,
    query: paymentSummaryQuery(),
    success: { status: 200, description: 'The totals.', schema: PaymentSummarySchema },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/refunds',
    operationId: 'listAccountRefunds',
    summary: 'List refunds',
    description: books('refunds'),
    auth: true,
    query: listBookRefundsQuery(),
    success: {
      status: 200,
      description: 'A page of refunds, or the CSV of the period.',
      schema: BookRefundListSchema,
      headers: nextLink,
      csv: csv(
        'by default `id`, `created_at`, … `connection_name`, then `metadata.<key>` for each key present; or the `columns` asked: docs/api.md#csv-exports',
      ),
    },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/settlements',
    operationId: 'listSettlements',
    summary: 'List settlements',
    description: `The PSPs' payouts of the API key's (account, mode) money (payouts, or settlements as some PSPs call them), newest arrival first, each with how many of its lines match payments and refunds of ours (docs/api.md#settlements). Read from each connection whose PSP lists payouts about every ${PAYOUT_READ_INTERVAL_MS / 60_000} minutes, so a payout is listed within that time of its PSP listing it. \`connection_id\` filters what is read, so a page may hold fewer than \`limit\` with a \`next_cursor\` to continue. With \`Accept: text/csv\` the page answers CSV (RFC 4180), one row per settlement.`,
    auth: true,
    query: listSettlementsQuery(),
    success: {
      status: 200,
      description: 'A page of settlements, or its CSV.',
      schema: SettlementListSchema,
      csv: csv(
        '`id`, `connection_id`, `provider`, `psp_reference`, `arrival_date`, `status`, `amount`, `currency`, `matched_count`, `unmatched_count`',
      ),
    },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/settlements/{id}',
    operationId: 'getSettlement',
    summary: 'Retrieve a settlement with its lines',
    description:
      "One payout with every line it contains, each matched to the payment (and refund) of ours it is, by the PSP's payment reference, or not (`matched: false`: money the PSP moved outside this service, its own fees, adjustments). With `Accept: text/csv` the lines as CSV (RFC 4180), one row per line.",
    auth: true,
    params: z.object({ id: publicId('stl').meta({ description: 'The settlement id.' }) }),
    success: {
      status: 200,
      description: 'The settlement and its lines, or their CSV.',
      schema: SettlementWithItemsSchema,
      csv: csv(
        '`settlement_id`, `arrival_date`, `kind`, `psp_reference`, `payment_reference`, `amount`, `fee`, `net`, `currency`, `matched`, `link_id`, `payment_id`, `refund_id`',
      ),
    },
    errors: ['not_found'],
  },
  {
    method: 'delete',
    path: '/v1/payments/{id}/buyer',
    operationId: 'erasePaymentBuyer',
    summary: "Erase a payment's buyer details",
    description:
      "Erases the buyer's personal data everywhere the service holds it, from this payment and from the buyer's other attempts on its link: those with the same `client_reference_id` and those made in the same browser (a reusable link's buyer cookie chains them). From each: its `buyer` (which becomes `{erased_at}`), its `client_reference_id` and its answers to `custom_fields`, and their copies in refunds, in every stored event of the link and in the link (docs/security.md#personal-data). The payments stay. Attempts from another browser without the same reference cannot be linked: erase them by their own ids (`GET /v1/payments?client_reference_id=` lists a reference's payments account-wide). Repeating it answers the first erasure's time. A payment that never held buyer details is `not_found`.",
    auth: true,
    params: z.object({ id: publicId('pay').meta({ description: 'The payment id.' }) }),
    success: { status: 200, description: 'The erasure.', schema: BuyerErasureSchema },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/account-settings',
    operationId: 'getAccountSettings',
    summary: 'Retrieve the account settings',
    description:
      "The key's (account, mode) settings: how long buyer details are kept (default 400 days), and the time zone whose days the books' dates are (default UTC).",
    auth: true,
    success: { status: 200, description: 'The account settings.', schema: AccountSettingsSchema },
    errors: [],
  },
  {
    method: 'put',
    path: '/v1/account-settings',
    operationId: 'putAccountSettings',
    summary: 'Replace the account settings',
    description:
      "Replaces the key's (account, mode) settings whole (an absent `time_zone` is UTC). A new retention period applies to each payment at the retention sweep's next look at it (docs/security.md#personal-data); a new time zone to the dates of each request after it.",
    auth: true,
    body: { schema: accountSettingsRequest(), required: true },
    success: { status: 200, description: 'The account settings.', schema: AccountSettingsSchema },
    errors: ['validation_failed'],
  },
];
