import type { z } from 'zod';
import type { oas31 } from 'zod-openapi';
import type { ErrorCode } from '../../functions/http/api/response-schemas.ts';

/**
 * One operation of the merchant API: what an integrator reads in docs/api.md and docs/openapi.json.
 * `lib/openapi/document.ts` turns it into an OpenAPI operation and adds what every operation of its kind has: the
 * API key, the rate-limit headers, the `Idempotency-Key` of an authenticated POST, and the errors of
 * authentication, rate limiting, body parsing and idempotency.
 */
export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** As in lib/routes.ts (a test checks that the two list the same operations). */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** Requires an API key (and so is rate limited); `false` only for the public OpenAPI document. */
  auth: boolean;
  /** The `{name}` segments of `path`, each with its schema and description. */
  params?: z.ZodObject;
  /** The query schema the handler validates with (its coerced types are documented, e.g. an integer). */
  query?: z.core.$ZodObject;
  /** The request schema the handler validates with; `required: false` for bodies that may be omitted. */
  body?: { schema: z.core.$ZodType; required: boolean; mediaTypes?: string[] };
  success: {
    status: number;
    description: string;
    /** A schema of functions/http/api/response-schemas.ts (a `meta` id makes it a component) or a JSON Schema. */
    schema: z.core.$ZodType | Record<string, unknown>;
    /** Response headers of this operation (the rate-limit and idempotency ones are added). */
    headers?: oas31.HeadersObject;
    /** What the same request answers with `Accept: text/csv` (docs/api.md#csv-exports), when it can. */
    csv?: { description: string; maxBytes: number };
  };
  /**
   * The created resource itself holds the `Idempotency-Key` (a keyed create is one conditional write: docs/data-model.md#keyed-creates),
   * so a retry racing the first request gets its answer, never `idempotency_in_progress`.
   */
  keyHeldByResource?: true;
  /** Errors specific to the operation; the common ones are derived from the flags above. */
  errors: ErrorCode[];
}
