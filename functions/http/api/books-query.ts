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

const time = (description: string) =>
  z.optional(
    z.iso.datetime({ offset: true }).check(z.maxLength(MAX_TIMESTAMP_LENGTH), z.meta({ description })),
  );

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

/**
 * `GET /v1/payments` and `GET /v1/refunds` query parameters (`statuses`: each one's own); errors point at the
 * parameter by name (`/created[gte]`).
 */
const booksQuery = (statuses: readonly [string, ...string[]], what: string) =>
  z.strictObject({
    'created[gte]': time(`Only ${what} created at or after this RFC 3339 time. Required for CSV.`),
    'created[lt]': time(
      `Only ${what} created before this RFC 3339 time. Required for CSV, at most 31 days after \`created[gte]\`.`,
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
    limit: z
      ._default(
        z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT))),
        DEFAULT_LIST_LIMIT,
      )
      .check(
        z.meta({ description: `Entries per page, 1 to ${MAX_LIST_LIMIT} (JSON only).`, format: 'int32' }),
      ),
    cursor: z
      .optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)))
      .check(z.meta({ description: 'The `next_cursor` of the previous page; omit for the first page.' })),
  });

export const listBookPaymentsQuery = /* @__PURE__ */ once(() => booksQuery(PAYMENT_STATES, 'payments'));
export const listBookRefundsQuery = /* @__PURE__ */ once(() => booksQuery(REFUND_STATUSES, 'refunds'));
