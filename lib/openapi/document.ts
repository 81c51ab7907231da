import { z } from 'zod';
import {
  type CreateDocumentOptions,
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import {
  EventListSchema,
  EventSchema,
  EventWithDeliveriesSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
} from '../../functions/http/api/endpoint-response-schemas.ts';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../../functions/http/api/idempotency.ts';
import {
  ERROR_CODES,
  type ErrorCode,
  EventLogSchema,
  PaymentLinkListSchema,
  PaymentLinkSchema,
  PaymentListSchema,
  PaymentSchema,
  ProblemSchema,
  PspConnectionListSchema,
  RedeliverySchema,
} from '../../functions/http/api/response-schemas.ts';
import { MAX_RATE_LIMIT_WINDOW_SECONDS } from '../../functions/ports/rate-limiter.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../functions/use-cases/idempotency.ts';
import { type OperationSpec, operations } from './operations.ts';

/**
 * The OpenAPI 3.1 document, built by zod-openapi from the operations of operations.ts: the request schemas
 * are the zod objects the handlers validate with, so the document cannot drift from what is enforced.
 */
export function openApiDocument() {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Payment links API',
        version: '1',
        description:
          'Create payment links, send buyers to their `checkout_url`, and receive signed webhooks. Errors are RFC 9457 problem details; see docs/api.md.',
      },
      servers: [
        {
          url: '{base_url}',
          description:
            'The `BaseUrl` output of a deployed stack (production or staging), or the local stack of `npm start`.',
          variables: { base_url: { default: 'http://127.0.0.1:3000' } },
          'x-internal': false,
        },
      ],
      security: [{ bearerAuth: [] }],
      tags: [...new Set(operations.map(tagOf))].map((name) => ({ name })),
      paths: paths(operations),
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `svc_test_…` or `svc_live_…`.',
          },
        },
        headers: rateLimitHeaders,
        // Listed so that they are components even where no operation names them, in the order docs/api.md shows.
        schemas: {
          PaymentLink: PaymentLinkSchema,
          PaymentLinkList: PaymentLinkListSchema,
          EventLog: EventLogSchema,
          Payment: PaymentSchema,
          PaymentList: PaymentListSchema,
          PspConnectionList: PspConnectionListSchema,
          Redelivery: RedeliverySchema,
          Event: EventSchema,
          EventList: EventListSchema,
          EventWithDeliveries: EventWithDeliveriesSchema,
          WebhookEndpoint: WebhookEndpointSchema,
          WebhookEndpointList: WebhookEndpointListSchema,
          Problem: ProblemSchema,
        },
      },
    },
    { override: documentCoercedValues },
  );
}

function paths(specs: OperationSpec[]): ZodOpenApiPathsObject {
  const byPath: ZodOpenApiPathsObject = {};
  for (const spec of specs) byPath[spec.path] = { ...byPath[spec.path], [spec.method]: operation(spec) };
  return byPath;
}

/** An authenticated POST takes an `Idempotency-Key` (docs/api.md#idempotency). */
const isIdempotent = (spec: OperationSpec) => spec.auth && spec.method === 'post';

/** Operations are grouped by what they act on: the first segment after `/v1` (`payment-links`, `openapi`). */
const tagOf = (spec: OperationSpec) => (spec.path.split('/')[2] as string).replace(/\.json$/, '');

function operation(spec: OperationSpec): ZodOpenApiOperationObject {
  return {
    operationId: spec.operationId,
    tags: [tagOf(spec)],
    summary: spec.summary,
    description: spec.description,
    ...(spec.auth ? {} : { security: [] }),
    ...requestParams(spec),
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.required,
            content: Object.fromEntries(
              (spec.body.mediaTypes ?? ['application/json']).map((type) => [
                type,
                { schema: spec.body?.schema },
              ]),
            ),
          },
        }
      : {}),
    responses: responses(spec),
  };
}

function requestParams(spec: OperationSpec): Pick<ZodOpenApiOperationObject, 'requestParams'> {
  const params = {
    ...(spec.params ? { path: spec.params } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    ...(isIdempotent(spec) ? { header: idempotencyKeyHeader } : {}),
  };
  return Object.keys(params).length ? { requestParams: params } : {};
}

const idempotencyKeyHeader = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .min(1)
    .max(MAX_IDEMPOTENCY_KEY_LENGTH)
    .optional()
    .meta({
      description: `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, kept 24 hours per account and mode: a retry with the same key and body replays the first response.`,
    }),
});

function responses(spec: OperationSpec): ZodOpenApiResponsesObject {
  const all: ZodOpenApiResponsesObject = { [statusKey(spec.success.status)]: successResponse(spec) };
  for (const [status, codes] of errorsByStatus(spec)) all[statusKey(status)] = problemResponse(codes);
  if (spec.auth) {
    for (const response of Object.values(all) as ZodOpenApiResponseObject[]) {
      response.headers = { ...rateLimitHeaderRefs, ...(response.headers as oas31.HeadersObject | undefined) };
    }
  }
  return all;
}

/**
 * The IETF RateLimit header fields on every response to a counted request (docs/api.md#rate-limits). Optional:
 * a request refused before its API key is known (`401`) has no quota to report.
 */
const rateLimitHeaders: Record<string, oas31.HeaderObject> = {
  'RateLimit-Limit': {
    description: 'Requests per window for the account and mode of the API key.',
    schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const,
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window after this one.',
    schema: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends.',
    schema: secondsSchema(),
  },
};
const rateLimitHeaderRefs = Object.fromEntries(
  Object.keys(rateLimitHeaders).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);

function secondsSchema(): oas31.SchemaObject {
  return { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_RATE_LIMIT_WINDOW_SECONDS };
}

const statusKey = (status: number) => String(status) as `${1 | 2 | 3 | 4 | 5}${string}`;

function successResponse(spec: OperationSpec): ZodOpenApiResponseObject {
  const headers: oas31.HeadersObject = { ...spec.success.headers };
  if (isIdempotent(spec)) {
    headers[REPLAYED_HEADER] = {
      description: '`true` on a replayed response.',
      schema: { type: 'string', enum: ['true'] },
    };
  }
  return {
    description: spec.success.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    content: {
      'application/json': { schema: spec.success.schema },
      ...(spec.success.csv && {
        'text/csv': {
          schema: {
            type: 'string',
            maxLength: spec.success.csv.maxBytes,
            description: spec.success.csv.description,
          },
        },
      }),
    },
  };
}

/** The codes whose answers carry `Retry-After`. */
const RETRY_AFTER_CODES = new Set<ErrorCode>([
  'rate_limited',
  'idempotency_in_progress',
  'psp_unavailable',
  'temporarily_unavailable',
]);

/** A problem response narrowed to the codes an operation can answer with this status. */
function problemResponse(codes: ErrorCode[]): ZodOpenApiResponseObject {
  const retryAfter = codes.some((code) => RETRY_AFTER_CODES.has(code));
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].meaning}`).join(' '),
    ...(retryAfter
      ? {
          headers: {
            'Retry-After': {
              description: 'Seconds to wait.',
              required: codes.every((code) => RETRY_AFTER_CODES.has(code)),
              schema: secondsSchema(),
            },
          },
        }
      : {}),
    content: {
      'application/problem+json': {
        schema: {
          allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { code: { enum: codes } } }],
        },
      },
    },
  };
}

function errorCodesOf(spec: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (spec.auth) codes.add('unauthorized').add('rate_limited');
  if (spec.body) {
    codes.add('invalid_json').add('payload_too_large').add('unsupported_media_type').add('validation_failed');
  }
  if (isIdempotent(spec)) {
    if (!spec.keyHeldByResource) codes.add('idempotency_in_progress');
    codes.add('idempotency_key_reused').add('validation_failed');
  }
  for (const code of spec.errors) codes.add(code);
  codes.add('internal_error').add('temporarily_unavailable');
  return [...codes];
}

/** The error codes an operation can answer, by HTTP status (exported for the API reference). */
export function errorsByStatus(spec: OperationSpec): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(spec)) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/**
 * Query parameters arrive as text and the handler coerces them (`z.coerce`): document the value a client
 * means, e.g. `limit` as an integer from 1 to 100, not the text that carries it.
 */
const documentCoercedValues: CreateDocumentOptions['override'] = ({ jsonSchema, zodSchema, io }) => {
  const def = zodSchema._zod.def;
  if (io !== 'input' || def.type !== 'pipe' || !('coerce' in def.in._zod.def && def.in._zod.def.coerce))
    return;
  const { $schema: _, ...coerced } = z.toJSONSchema(def.out, { io: 'output' });
  for (const key of Object.keys(jsonSchema)) delete jsonSchema[key as keyof typeof jsonSchema];
  Object.assign(jsonSchema, coerced);
};
