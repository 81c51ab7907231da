import { idPattern, maxIdLength } from '../../domain/ids.ts';
import { PAYMENT_STATES } from '../../domain/payment.ts';
import { REFUND_STATUSES } from '../../domain/payment-link.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { DEFAULT_LIST_LIMIT, MAX_CURSOR_LENGTH, MAX_LIST_LIMIT } from './list-query.ts';

/** As long as any RFC 3339 time is (`MAX_TIMESTAMP_LENGTH` of schemas.ts, whose URL rules this bundle avoids). */
const MAX_TIMESTAMP_LENGTH = 35;
/** A buyer's reference as the checkout URL carries it (docs/api.md#books). */
export const CLIENT_REFERENCE_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;
export const MAX_CLIENT_REFERENCE_LENGTH = 200;

/** A bound of the period: a date (a day of the account's time zone) or an RFC 3339 time. */
const time = (description: string) =>
  z.optional(
    z
      .union(
        [
          z.iso.date().check(z.maxLength(10)),
          z.iso.datetime({ offset: true }).check(z.maxLength(MAX_TIMESTAMP_LENGTH)),
        ],
        { error: 'Must be a date (2026-11-29) or an RFC 3339 date-time with a time zone.' },
      )
      .check(z.meta({ description })),
  );

/** `columns=`: the CSV's columns, comma-separated (checked against the export's own by `pickedColumns`). */
export const MAX_COLUMNS_LENGTH = 4096;

const id = (prefix: 'pc' | 'pl', what: string, description: string) =>
  z
    .optional(
      z
        .string()
        .check(
          z.regex(idPattern(prefix), `Must be ${what} (${prefix}_...).`),
          z.maxLength(maxIdLength(prefix)),
        ),
    )
    .check(z.meta({ description }));

const DATES =
  "A date (`2026-11-29`) is the start of that day in the account's `time_zone` (`GET /v1/account-settings`, default UTC).";

/** The filters of `GET /v1/payments`, `GET /v1/refunds` and `GET /v1/payments/summary` (`statuses`: each one's). */
const filters = (statuses: readonly [string, ...string[]], what: string, csv: boolean) => ({
  'created[gte]': time(
    `Only ${what} created at or after this date or RFC 3339 time.${csv ? ' Required for CSV.' : ''} ${DATES}`,
  ),
  'created[lt]': time(
    `Only ${what} created before this date or RFC 3339 time.${csv ? ' Required for CSV, at most 31 days after `created[gte]`.' : ''} ${DATES}`,
  ),
  status: z.optional(z.enum(statuses)).check(z.meta({ description: `Only ${what} with this status.` })),
  connection_id: id('pc', 'a PSP connection id', `Only ${what} through this connection.`),
  link_id: id('pl', 'a payment link id', `Only ${what} of this payment link.`),
  client_reference_id: z
    .optional(
      z
        .string()
        .check(
          z.regex(CLIENT_REFERENCE_PATTERN, 'Up to 200 of A-Z, a-z, 0-9, `_` and `-`.'),
          z.maxLength(MAX_CLIENT_REFERENCE_LENGTH),
        ),
    )
    .check(z.meta({ description: `Only ${what} of payments with this \`client_reference_id\`.` })),
});

const cursor = () =>
  z
    .optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)))
    .check(z.meta({ description: 'The `next_cursor` of the previous page; omit for the first page.' }));

/**
 * `GET /v1/payments` and `GET /v1/refunds` query parameters (`statuses`: each one's own); errors point at the
 * parameter by name (`/created[gte]`).
 */
const booksQuery = (statuses: readonly [string, ...string[]], what: string) =>
  z.strictObject({
    ...filters(statuses, what, true),
    limit: z
      ._default(
        z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT))),
        DEFAULT_LIST_LIMIT,
      )
      .check(
        z.meta({ description: `Entries per page, 1 to ${MAX_LIST_LIMIT} (JSON only).`, format: 'int32' }),
      ),
    cursor: cursor(),
    columns: z.optional(z.string().check(z.maxLength(MAX_COLUMNS_LENGTH))).check(
      z.meta({
        description:
          'CSV only: the columns, in this order, comma-separated (docs/api.md#csv-exports lists them; `metadata.<key>` and `custom_field.<key>` name a key). Absent: the default columns.',
      }),
    ),
  });

export const listBookPaymentsQuery = /* @__PURE__ */ once(() => booksQuery(PAYMENT_STATES, 'payments'));
export const listBookRefundsQuery = /* @__PURE__ */ once(() => booksQuery(REFUND_STATUSES, 'refunds'));
/** `GET /v1/payments/summary`: the list's filters, and the cursor where the previous answer stopped. */
export const paymentSummaryQuery = /* @__PURE__ */ once(() =>
  z.strictObject({ ...filters(PAYMENT_STATES, 'payments', false), cursor: cursor() }),
);
