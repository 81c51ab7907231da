import { idPattern, maxIdLength } from '../../domain/ids.ts';
import { EVENT_TYPES } from '../../domain/link-events.ts';
import { ENDPOINT_EVENT_TYPES } from '../../domain/webhook-endpoint.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { DEFAULT_LIST_LIMIT, MAX_CURSOR_LENGTH, MAX_LIST_LIMIT } from './list-query.ts';

/** As long as any RFC 3339 time is (`MAX_TIMESTAMP_LENGTH` of schemas.ts, whose URL rules this bundle avoids). */
const MAX_TIMESTAMP_LENGTH = 35;

/** `GET /v1/events` query parameters; errors point at the parameter by name (`/created[gte]`). */
export const listEventsQuery = /* @__PURE__ */ once(() =>
  z.strictObject({
    type: z
      .optional(z.enum([...EVENT_TYPES, ...ENDPOINT_EVENT_TYPES]))
      .check(z.meta({ description: 'Only events of this type.' })),
    'created[gte]': z.optional(
      z.iso.datetime({ offset: true }).check(
        z.maxLength(MAX_TIMESTAMP_LENGTH),
        z.meta({
          description: 'Only events created at or after this RFC 3339 time (at most 30 days back).',
        }),
      ),
    ),
    link: z
      .optional(
        z
          .string()
          .check(
            z.regex(idPattern('pl'), 'Must be a payment link id (pl_...).'),
            z.maxLength(maxIdLength('pl')),
          ),
      )
      .check(z.meta({ description: 'Only the events of this payment link.' })),
    limit: z
      ._default(
        z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT))),
        DEFAULT_LIST_LIMIT,
      )
      .check(z.meta({ description: `Events per page, 1 to ${MAX_LIST_LIMIT}.`, format: 'int32' })),
    cursor: z
      .optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)))
      .check(z.meta({ description: 'The `next_cursor` of the previous page; omit for the first page.' })),
  }),
);
