import { z } from 'zod';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../use-cases/idempotency.ts';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from './idempotency.ts';
import { listPaymentLinksQuery } from './list-query.ts';
import {
  ERROR_CODES,
  type ErrorCode,
  EventLogSchema,
  PaymentLinkListSchema,
  PaymentLinkSchema,
  ProblemSchema,
  RedeliverySchema,
  RefundListSchema,
  RefundSchema,
} from './response-schemas.ts';
import { createPaymentLinkRequest, createRefundRequest, updatePaymentLinkRequest } from './schemas.ts';
import { emptyRequest } from './validate.ts';

/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate requests (and describe responses).
 * Adding an operation is one entry of `operations`; the errors every operation of its kind can answer
 * (authentication, rate limit, body parsing, idempotency) are added from its flags.
 */
export interface OperationSpec {
  method: 'get' | 'post' | 'patch';
  /** As in lib/routes.ts. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** Requires an API key (and so is rate limited); `false` only for the public OpenAPI document. */
  auth: boolean;
  query?: z.core.$ZodObject;
  /** A JSON request body; `required: false` for bodies that may be omitted (e.g. cancel). */
  body?: { schema: z.core.$ZodType; required: boolean };
  success: {
    status: number;
    description: string;
    /** A component name (see `components`) or an inline JSON Schema. */
    schema: ComponentName | Record<string, unknown>;
    headers?: Record<string, string>;
  };
  /** Errors specific to the operation (the common ones are derived). */
  errors: ErrorCode[];
}

/** Named schemas of `components.schemas`. */
const components = {
  PaymentLink: PaymentLinkSchema,
  PaymentLinkList: PaymentLinkListSchema,
  EventLog: EventLogSchema,
  Redelivery: RedeliverySchema,
  Refund: RefundSchema,
  RefundList: RefundListSchema,
  Problem: ProblemSchema,
} as const;
type ComponentName = keyof typeof components;

const pathId = (path: string) =>
  path.startsWith('/v1/events/')
    ? {
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^evt_[0-9A-Za-z]{22,}$' },
        description: 'The event id (the `webhook-id` of its deliveries).',
      }
    : {
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^pl_[0-9A-Za-z]{22,}$' },
        description: 'The payment link id.',
      };

export const operations: OperationSpec[] = [
  {
    method: 'post',
    path: '/v1/payment-links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    description: 'Creates an open payment link in the mode of the API key and returns the whole resource.',
    auth: true,
    body: { schema: createPaymentLinkRequest('live', false), required: true },
    success: {
      status: 201,
      description: 'The new payment link.',
      schema: 'PaymentLink',
      headers: { Location: 'The path of the new link.' },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/payment-links',
    operationId: 'listPaymentLinks',
    summary: 'List payment links',
    description:
      "The API key's (account, mode) links, newest first, one page at a time. `status=expired` includes open links whose `expires_at` has passed; `status=open` excludes them.",
    auth: true,
    query: listPaymentLinksQuery(),
    success: { status: 200, description: 'A page of links.', schema: 'PaymentLinkList' },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}',
    operationId: 'getPaymentLink',
    summary: 'Retrieve a payment link',
    description: 'The link as it is now: an open link past its `expires_at` reads `expired`.',
    auth: true,
    success: { status: 200, description: 'The payment link.', schema: 'PaymentLink' },
    errors: ['not_found'],
  },
  {
    method: 'patch',
    path: '/v1/payment-links/{id}',
    operationId: 'updatePaymentLink',
    summary: 'Update a payment link',
    description:
      'Changes an open link (`application/json` or `application/merge-patch+json`): a field that is present replaces the stored value, `null` clears it, an absent one stays; `metadata` is replaced whole. Same rules as on creation; `amount` cannot change (422). A paid, canceled or expired link is `invalid_state`. A change to `description`, `redirect_url` or `expires_at` ends the open PSP session, so the next checkout visit opens a fresh one. No `Idempotency-Key`: repeating a PATCH gives the same result.',
    auth: true,
    body: { schema: updatePaymentLinkRequest('live', false), required: true },
    success: { status: 200, description: 'The updated payment link.', schema: 'PaymentLink' },
    errors: ['not_found', 'invalid_state', 'validation_failed'],
  },
  {
    method: 'post',
    path: '/v1/payment-links/{id}/cancel',
    operationId: 'cancelPaymentLink',
    summary: 'Cancel a payment link',
    description:
      'Cancels an open link and sends the `payment_link.canceled` webhook. Canceling a canceled link returns it unchanged; a paid or expired link is `invalid_state`. No body is needed; an empty JSON object is accepted.',
    auth: true,
    body: { schema: emptyRequest(), required: false },
    success: { status: 200, description: 'The canceled payment link.', schema: 'PaymentLink' },
    errors: ['not_found', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/v1/payment-links/{id}/refunds',
    operationId: 'createRefund',
    summary: 'Refund a paid payment link',
    description:
      'Refunds all that remains of the payment (no body, or `{}`), or part of it (`amount`, in the currency of the payment), through the PSP connection that took it. The refunds of a link never add up past the paid amount, even when requested concurrently. The refund is `succeeded` or `failed` at once when the PSP answers at once, else `pending` until its `refund.succeeded` or `refund.failed` webhook. A link that is not paid is `invalid_state`; another currency or more than remains is `validation_failed`.',
    auth: true,
    body: { schema: createRefundRequest(), required: false },
    success: { status: 201, description: 'The refund.', schema: 'Refund' },
    errors: ['not_found', 'invalid_state', 'validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}/refunds',
    operationId: 'listRefunds',
    summary: "List a payment link's refunds",
    description: 'Every refund of the link, newest first.',
    auth: true,
    success: { status: 200, description: 'The refunds.', schema: 'RefundList' },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}/events',
    operationId: 'listPaymentLinkEvents',
    summary: "List a payment link's webhook events",
    description:
      'Every webhook event of the link, oldest first, with its delivery status and every delivery attempt (docs/webhooks.md).',
    auth: true,
    success: { status: 200, description: 'The delivery log.', schema: 'EventLog' },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/events/{id}/redeliver',
    operationId: 'redeliverEvent',
    summary: 'Redeliver a webhook event',
    description:
      'Queues the event again, whatever its status, with the same `webhook-id`; its retry schedule starts afresh. No body is needed.',
    auth: true,
    body: { schema: emptyRequest(), required: false },
    success: { status: 202, description: 'The redelivery is queued.', schema: 'Redelivery' },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'Public: no API key needed.',
    auth: false,
    success: { status: 200, description: 'The OpenAPI 3.1 document.', schema: { type: 'object' } },
    errors: [],
  },
];

const jsonSchema = (schema: z.core.$ZodType, io: 'input' | 'output') => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return rest;
};

function componentSchemas() {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    target: 'draft-2020-12',
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
  );
}

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });

function errorCodesOf(operation: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (operation.auth) codes.add('unauthorized').add('rate_limited');
  if (operation.body) {
    codes.add('invalid_json').add('payload_too_large').add('unsupported_media_type').add('validation_failed');
  }
  if (operation.auth && operation.method === 'post') {
    codes.add('idempotency_in_progress').add('idempotency_key_reused').add('validation_failed');
  }
  for (const code of operation.errors) codes.add(code);
  codes.add('internal_error');
  return [...codes];
}

/** The error codes an operation can answer, by HTTP status (exported for the API reference). */
export function errorsByStatus(operation: OperationSpec): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(operation)) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  description,
  schema,
});

/** A PATCH is a JSON merge patch (RFC 7396) and takes that media type beside plain JSON. */
const requestMediaTypes = (operation: OperationSpec) =>
  operation.method === 'patch' ? ['application/json', 'application/merge-patch+json'] : ['application/json'];

function operationObject(operation: OperationSpec) {
  const parameters: Record<string, unknown>[] = [];
  if (operation.path.includes('{id}')) parameters.push(pathId(operation.path));
  if (operation.query) {
    type ObjectSchema = { properties: Record<string, { description?: string }>; required?: string[] };
    // Types from the output side (what a parameter parses to, e.g. an integer, rather than the URL's string);
    // whether it is required from the input side (a parameter with a default may be left out).
    const query = jsonSchema(operation.query, 'output') as ObjectSchema;
    const required = (jsonSchema(operation.query, 'input') as ObjectSchema).required ?? [];
    for (const [name, { description, ...schema }] of Object.entries(query.properties)) {
      parameters.push({
        name,
        in: 'query',
        required: required.includes(name),
        description,
        schema,
      });
    }
  }
  const idempotent = operation.auth && operation.method === 'post';
  if (idempotent) {
    parameters.push({
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description: `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, kept 24 hours per account and mode: a retry with the same key and body replays the first response.`,
      schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
    });
  }
  const successHeaders: Record<string, unknown> = Object.fromEntries(
    Object.entries(operation.success.headers ?? {}).map(([name, description]) => [name, header(description)]),
  );
  if (idempotent) {
    successHeaders[REPLAYED_HEADER] = header('`true` on a replayed response.', {
      type: 'string',
      enum: ['true'],
    });
  }
  const responses: Record<string, unknown> = {
    [operation.success.status]: {
      description: operation.success.description,
      ...(Object.keys(successHeaders).length ? { headers: successHeaders } : {}),
      content: {
        'application/json': {
          schema:
            typeof operation.success.schema === 'string'
              ? ref(operation.success.schema)
              : operation.success.schema,
        },
      },
    },
  };
  for (const [status, codes] of errorsByStatus(operation)) {
    const retryAfter = codes.some((code) => code === 'rate_limited' || code === 'idempotency_in_progress');
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].meaning}`).join(' '),
      ...(retryAfter ? { headers: { 'Retry-After': header('Seconds to wait.', { type: 'integer' }) } } : {}),
      content: {
        'application/problem+json': {
          schema: { allOf: [ref('Problem'), { properties: { code: { enum: codes } } }] },
        },
      },
    };
  }
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    ...(operation.auth ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: operation.body.required,
            content: Object.fromEntries(
              requestMediaTypes(operation).map((type) => [
                type,
                { schema: jsonSchema((operation.body as { schema: z.core.$ZodType }).schema, 'input') },
              ]),
            ),
          },
        }
      : {}),
    responses,
  };
}

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    paths[operation.path] = { ...paths[operation.path], [operation.method]: operationObject(operation) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment links API',
      version: '1',
      description:
        'Create payment links, send buyers to their `checkout_url`, and receive signed webhooks. Errors are RFC 9457 problem details; see docs/api.md.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3000' } } }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `svc_test_…` or `svc_live_…`.',
        },
      },
      schemas: componentSchemas(),
    },
  };
}
