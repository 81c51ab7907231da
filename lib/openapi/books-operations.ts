import { z } from 'zod';
import { MAX_EXPORT_DAYS } from '../../functions/domain/books.ts';
import { accountSettingsRequest } from '../../functions/http/api/account-settings-schemas.ts';
import { listBookPaymentsQuery, listBookRefundsQuery } from '../../functions/http/api/books-query.ts';
import { MAX_CSV_BYTES } from '../../functions/http/api/books-response.ts';
import {
  AccountSettingsSchema,
  BookPaymentListSchema,
  BookRefundListSchema,
  BuyerErasureSchema,
} from '../../functions/http/api/books-response-schemas.ts';
import { publicId } from '../../functions/http/api/response-schemas.ts';
import type { OperationSpec } from './operation-spec.ts';

const nextLink = {
  Link: {
    description:
      'CSV only: present when the export stopped at its size bound before the period ended; `rel="next"` names the same request continued.',
    schema: { type: 'string', maxLength: 2048 },
  },
} as const;

const books = (what: 'payments' | 'refunds') =>
  `The API key's (account, mode) ${what}, newest first, filtered, one page at a time (docs/api.md#books). Filters combine. \`link_id\` and \`client_reference_id\` read only their own entries; \`status\` and \`connection_id\` filter what is read, so a page may hold fewer than \`limit\` (even none) with a \`next_cursor\` to continue. With \`Accept: text/csv\` the same query answers CSV (RFC 4180): \`created[gte]\` and \`created[lt]\` are then required, at most ${MAX_EXPORT_DAYS} days apart, and a longer answer than ${MAX_CSV_BYTES} bytes ends with a \`Link: rel="next"\` header (docs/api.md#csv-exports).`;

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
      csv: csv('`id`, `created_at`, … `shipping_country`: docs/api.md#csv-exports'),
    },
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
      csv: csv('`id`, `created_at`, … `client_reference_id`: docs/api.md#csv-exports'),
    },
    errors: ['validation_failed'],
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
    description: "The key's (account, mode) settings: how long buyer details are kept (default 400 days).",
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
      "Replaces the key's (account, mode) settings whole. A new retention period applies to each payment at the retention sweep's next look at it (docs/security.md#personal-data).",
    auth: true,
    body: { schema: accountSettingsRequest(), required: true },
    success: { status: 200, description: 'The account settings.', schema: AccountSettingsSchema },
    errors: ['validation_failed'],
  },
];
