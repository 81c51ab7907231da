import { LINK_STATUSES } from '../../domain/payment-link.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_VALUE_LENGTH } from './metadata-limits.ts';

// Apart from the create schema (schemas.ts) so that each handler's bundle carries only the schemas it uses.

/** `limit` 1 to 100, default 10; outside is a 422, never silently clamped (docs/api.md#pagination). */
export const MAX_LIST_LIMIT = 100;
export const DEFAULT_LIST_LIMIT = 10;
export const MAX_CURSOR_LENGTH = 256;
export const MAX_METADATA_FILTERS = 5;

const METADATA_PARAMETER = /^metadata\[(.*)\]$/s;

/**
 * API Gateway hands `?metadata[order_id]=1042` over as a parameter named `metadata[order_id]`: gathered here into
 * one `metadata` object, as the document's `deepObject` parameter describes it, before the query is validated.
 */
export function gatherMetadataParameters(
  parameters: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> {
  const others: [string, unknown][] = [];
  const metadata: [string, unknown][] = [];
  for (const [name, value] of Object.entries(parameters)) {
    const key = METADATA_PARAMETER.exec(name)?.[1];
    if (key === undefined) others.push([name, value]);
    else metadata.push([key, value]);
  }
  // fromEntries defines own properties, so a `__proto__` key is a key like any other here.
  if (metadata.length > 0) others.push(['metadata', Object.fromEntries(metadata)]);
  return Object.fromEntries(others);
}

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
    metadata: z
      .optional(
        z
          .record(
            z.string().check(z.minLength(1), z.maxLength(MAX_METADATA_KEY_LENGTH)),
            z.string().check(z.maxLength(MAX_METADATA_VALUE_LENGTH)),
          )
          .check(
            z.refine(
              (pairs) => Object.keys(pairs).length <= MAX_METADATA_FILTERS,
              `At most ${MAX_METADATA_FILTERS} metadata keys.`,
            ),
          ),
      )
      .check(
        z.meta({
          description: `Only links whose metadata has each of these values, exactly (\`metadata[order_id]=1042\`); up to ${MAX_METADATA_FILTERS} keys, which combine.`,
          param: { style: 'deepObject', explode: true },
        }),
      ),
    status: z.optional(z.enum(LINK_STATUSES)).check(
      z.meta({
        description:
          'Only links with this status as reads show it (`expired` includes links past `expires_at`).',
      }),
    ),
  }),
);
