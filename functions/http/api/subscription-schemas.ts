import { idPattern, maxIdLength } from '../../domain/ids.ts';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { MAX_COLUMNS_LENGTH } from './books-query.ts';
import { amountSchema } from './field-schemas.ts';
import { DEFAULT_LIST_LIMIT, MAX_CURSOR_LENGTH, MAX_LIST_LIMIT } from './list-query.ts';
import { metadataSchema } from './schemas.ts';

/** Request schemas of `/v1/subscriptions` (docs/api.md#subscriptions). */

/** `POST /v1/subscriptions/{id}/cancel`: now (default), or at the end of the period paid. */
export const cancelSubscriptionRequest = /* @__PURE__ */ once(() =>
  z.optional(
    z.strictObject({
      at_period_end: z.optional(
        z.boolean().check(
          z.meta({
            description:
              'Cancel when the current period ends (nothing more is charged; a `past_due` subscription, whose period is unpaid, is canceled now). Default: false, now.',
          }),
        ),
      ),
    }),
  ),
);

/** `PATCH /v1/subscriptions/{id}`: `metadata` (replaced whole, `null` clears it) and the amount of later periods. */
export const updateSubscriptionRequest = /* @__PURE__ */ once(() =>
  z.strictObject({
    metadata: z
      .nullish(metadataSchema())
      .check(z.meta({ description: 'Replaced whole; `null` clears it. Same limits as a link’s.' })),
    amount: z.optional(
      amountSchema().check(
        z.meta({
          description:
            'What each period charges from the next one not yet charged (a charge under way, or a period being collected, keeps its own). In the subscription’s currency.',
        }),
      ),
    ),
  }),
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

const time = (description: string) =>
  z.optional(
    z.iso
      .datetime({ offset: true })
      .check(z.maxLength(35), z.meta({ description: `${description} RFC 3339 with a time zone.` })),
  );

/** `GET /v1/subscriptions` query parameters (JSON pages, or with `Accept: text/csv` the CSV of a period). */
export const listSubscriptionsQuery = /* @__PURE__ */ once(() =>
  z.strictObject({
    status: z
      .optional(z.enum(SUBSCRIPTION_STATUSES))
      .check(z.meta({ description: 'Only subscriptions with this status.' })),
    link_id: id('pl', 'a payment link id', 'Only subscriptions of this subscription link.'),
    connection_id: id('pc', 'a PSP connection id', 'Only subscriptions pinned to this connection.'),
    'created[gte]': time('Only subscriptions started at or after this time. Required for CSV.'),
    'created[lt]': time(
      'Only subscriptions started before this time. Required for CSV, at most 31 days after `created[gte]`.',
    ),
    limit: z
      ._default(
        z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT))),
        DEFAULT_LIST_LIMIT,
      )
      .check(
        z.meta({
          description: `Subscriptions per page, 1 to ${MAX_LIST_LIMIT} (JSON only).`,
          format: 'int32',
        }),
      ),
    cursor: z
      .optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)))
      .check(z.meta({ description: 'The `next_cursor` of the previous page; omit for the first page.' })),
    columns: z.optional(z.string().check(z.maxLength(MAX_COLUMNS_LENGTH))).check(
      z.meta({
        description:
          'CSV only: the columns, in this order, comma-separated (docs/api.md#subscriptions lists them; `metadata.<key>` names a key). Absent: the default columns.',
      }),
    ),
  }),
);
