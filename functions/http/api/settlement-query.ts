import { idPattern, maxIdLength } from '../../domain/ids.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { DEFAULT_LIST_LIMIT, MAX_CURSOR_LENGTH, MAX_LIST_LIMIT } from './list-query.ts';

const day = (description: string) =>
  z
    .optional(z.iso.date({ error: 'Must be a date (2026-11-29).' }).check(z.maxLength(10)))
    .check(z.meta({ description }));

/** `GET /v1/settlements` query parameters; errors point at the parameter by name (`/arrival_date[gte]`). */
export const listSettlementsQuery = /* @__PURE__ */ once(() =>
  z.strictObject({
    'arrival_date[gte]': day('Only settlements arriving on or after this day (UTC).'),
    'arrival_date[lt]': day('Only settlements arriving before this day (UTC).'),
    connection_id: z
      .optional(
        z
          .string()
          .check(
            z.regex(idPattern('pc'), 'Must be a PSP connection id (pc_...).'),
            z.maxLength(maxIdLength('pc')),
          ),
      )
      .check(z.meta({ description: 'Only settlements of this connection.' })),
    limit: z
      ._default(
        z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT))),
        DEFAULT_LIST_LIMIT,
      )
      .check(z.meta({ description: `Entries per page, 1 to ${MAX_LIST_LIMIT}.`, format: 'int32' })),
    cursor: z
      .optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)))
      .check(z.meta({ description: 'The `next_cursor` of the previous page; omit for the first page.' })),
  }),
);
