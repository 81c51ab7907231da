import { LINK_STATUSES } from '../domain/payment-link.ts';
import { once } from '../once.ts';
import * as z from '../zod.ts';

// Apart from the create schema (schemas.ts) so that each handler's bundle carries only the schemas it uses.

/** `limit` 1 to 100, default 10; outside is a 422, never silently clamped (docs/api.md#pagination). */
export const MAX_LIST_LIMIT = 100;
export const DEFAULT_LIST_LIMIT = 10;
export const MAX_CURSOR_LENGTH = 256;

/**
 * `GET /v1/payment-links` query parameters. Errors point at the parameter by name (`/limit`), as if the query
 * string were a JSON object; unknown parameters are rejected like unknown body fields. Built on first use, not
 * at import (see functions/once.ts).
 */
export const listPaymentLinksQuery = /* @__PURE__ */ once(() =>
  z.strictObject({
    limit: z
      ._default(
        z.pipe(z.coerce.number(), z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT))),
        DEFAULT_LIST_LIMIT,
      )
      .check(z.meta({ description: `Links per page, 1 to ${MAX_LIST_LIMIT}.`, format: 'int32' })),
    cursor: z
      .optional(z.string().check(z.maxLength(MAX_CURSOR_LENGTH)))
      .check(z.meta({ description: 'The `next_cursor` of the previous page; omit for the first page.' })),
    status: z.optional(z.enum(LINK_STATUSES)).check(
      z.meta({
        description:
          'Only links with this status as reads show it (`expired` includes links past `expires_at`).',
      }),
    ),
  }),
);
