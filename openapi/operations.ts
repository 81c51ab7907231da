import { z } from 'zod';
import type { oas31 } from 'zod-openapi';
import { listPaymentLinksQuery } from '../functions/http/list-query.ts';
import { routingRequest } from '../functions/http/routing-schemas.ts';
import {
  createPaymentLinkRequest,
  createRefundRequest,
  updatePaymentLinkRequest,
} from '../functions/http/schemas.ts';
import { emptyRequest } from '../functions/http/validate.ts';
import {
  type ErrorCode,
  EventId,
  EventLogSchema,
  PaymentLinkId,
  PaymentLinkListSchema,
  PaymentLinkSchema,
  PaymentListSchema,
  PspConnectionListSchema,
  RedeliverySchema,
  RefundListSchema,
  RefundSchema,
} from './response-schemas.ts';

/**
 * One operation of the merchant API: what an integrator reads in docs/api.md and docs/openapi.json.
 * `openapi/document.ts` turns it into an OpenAPI operation and adds what every operation of its kind has: the
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
    /** A response schema of response-schemas.ts (those with a `meta` id are components), or a JSON Schema. */
    schema: z.core.$ZodType | Record<string, unknown>;
    /** Response headers of this operation (the rate-limit and idempotency ones are added). */
    headers?: oas31.HeadersObject;
  };
  /** Errors specific to the operation; the common ones are derived from the flags above. */
  errors: ErrorCode[];
}

const linkPath = z.object({ id: PaymentLinkId.meta({ description: 'The payment link id.' }) });
const eventPath = z.object({
  id: EventId.meta({ description: 'The event id (the `webhook-id` of its deliveries).' }),
});

/** Every /v1 operation, in the order of docs/api.md. To add one, see "Adding an operation" in docs/api.md. */
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
      schema: PaymentLinkSchema,
      headers: {
        Location: {
          description: 'The path of the new link.',
          required: true,
          schema: { type: 'string', maxLength: '/v1/payment-links/'.length + PaymentLinkId.maxLength! },
        },
      },
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
    success: { status: 200, description: 'A page of links.', schema: PaymentLinkListSchema },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}',
    operationId: 'getPaymentLink',
    summary: 'Retrieve a payment link',
    description: 'The link as it is now: an open link past its `expires_at` reads `expired`.',
    auth: true,
    params: linkPath,
    success: { status: 200, description: 'The payment link.', schema: PaymentLinkSchema },
    errors: ['not_found'],
  },
  {
    method: 'patch',
    path: '/v1/payment-links/{id}',
    operationId: 'updatePaymentLink',
    summary: 'Update a payment link',
    description:
      'Changes an open link (`application/json` or `application/merge-patch+json`): a field that is present replaces the stored value, `null` clears it, an absent one stays; `metadata` is replaced whole. Same rules as on creation; `amount` cannot change (422). A paid, canceled or expired link is `invalid_state`. A change to `description`, `redirect_url` or `expires_at` ends the open PSP session, so the next checkout visit opens a fresh one; while its PSP cannot confirm it ended, the checkout keeps showing that session and opens no other (docs/orchestration.md#one-payable-session). No `Idempotency-Key`: repeating a PATCH gives the same result.',
    auth: true,
    params: linkPath,
    // A JSON merge patch (RFC 7396), so it takes that media type beside plain JSON.
    body: {
      schema: updatePaymentLinkRequest('live', false),
      required: true,
      mediaTypes: ['application/json', 'application/merge-patch+json'],
    },
    success: { status: 200, description: 'The updated payment link.', schema: PaymentLinkSchema },
    errors: ['not_found', 'invalid_state', 'validation_failed'],
  },
  {
    method: 'post',
    path: '/v1/payment-links/{id}/cancel',
    operationId: 'cancelPaymentLink',
    summary: 'Cancel a payment link',
    description:
      'Cancels an open link and sends the `payment_link.canceled` webhook. Its open PSP session is ended first; when the PSP cannot end it, the link stays open and the answer is 503 `service_unavailable` with `Retry-After`. Canceling a canceled link returns it unchanged; a paid or expired link is `invalid_state`. No body is needed; an empty JSON object is accepted.',
    auth: true,
    params: linkPath,
    body: { schema: emptyRequest(), required: false },
    success: { status: 200, description: 'The canceled payment link.', schema: PaymentLinkSchema },
    errors: ['not_found', 'invalid_state', 'service_unavailable'],
  },
  {
    method: 'post',
    path: '/v1/payment-links/{id}/refunds',
    operationId: 'createRefund',
    summary: 'Refund a paid payment link',
    description:
      'Refunds all that remains of the payment (no body, or `{}`), or part of it (`amount`, in the currency of the payment), through the PSP connection that took it. The refunds of a link never add up past the paid amount, even when requested concurrently. The refund is `succeeded` or `failed` at once when the PSP answers at once, with its `refund.succeeded` or `refund.failed` webhook; otherwise it is `pending` until the PSP decides, and the same webhook follows then (the PSP’s notification, or our sweeper asking the PSP: docs/webhooks.md#refunds). A link that is not paid is `invalid_state`; another currency or more than remains is `validation_failed`.',
    auth: true,
    params: linkPath,
    body: { schema: createRefundRequest(), required: false },
    success: { status: 201, description: 'The refund.', schema: RefundSchema },
    errors: ['not_found', 'invalid_state', 'validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}/refunds',
    operationId: 'listRefunds',
    summary: "List a payment link's refunds",
    description: 'Every refund of the link, newest first.',
    auth: true,
    params: linkPath,
    success: { status: 200, description: 'The refunds.', schema: RefundListSchema },
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
    params: linkPath,
    success: { status: 200, description: 'The delivery log.', schema: EventLogSchema },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/payment-links/{id}/payments',
    operationId: 'listPayments',
    summary: "List a payment link's payments",
    description:
      'Every attempt to pay the link, newest first: a failover shows as a failed payment with `failure.code` `psp_unavailable`, a declined attempt as a failed payment with the reason (docs/orchestration.md#payments).',
    auth: true,
    params: linkPath,
    success: { status: 200, description: 'The payments.', schema: PaymentListSchema },
    errors: ['not_found'],
  },
  {
    method: 'get',
    path: '/v1/psp-connections',
    operationId: 'listPspConnections',
    summary: 'List PSP connections',
    description:
      "The PSP connections of the API key's (account, mode), in the order they were added, with their health. Operators add them with `npm run psp -- add`; credentials are never returned. A test-mode account with none is served by the built-in sandbox, listed then.",
    auth: true,
    success: { status: 200, description: 'The connections.', schema: PspConnectionListSchema },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/routing',
    operationId: 'getRouting',
    summary: 'Retrieve the routing',
    description:
      'The routing in force for the mode: rules (first match wins) and the default list. With none set, no rules and the enabled connections in the order they were added (docs/orchestration.md#routing).',
    auth: true,
    success: { status: 200, description: 'The routing.', schema: routingRequest() },
    errors: [],
  },
  {
    method: 'put',
    path: '/v1/routing',
    operationId: 'putRouting',
    summary: 'Replace the routing',
    description:
      'Replaces the routing of the mode and returns it. `then` is `{"priority": [ids]}` or `{"split": [{"connection", "weight"}]}`; every `when` field is optional and all given ones must match; amount bounds apply to links in a currency the rule names. Unknown, removed or other-mode connection ids, empty lists and weights that are not positive integers are 422 with pointers.',
    auth: true,
    body: { schema: routingRequest(), required: true },
    success: { status: 200, description: 'The routing now in force.', schema: routingRequest() },
    errors: ['validation_failed'],
  },
  {
    method: 'post',
    path: '/v1/events/{id}/redeliver',
    operationId: 'redeliverEvent',
    summary: 'Redeliver a webhook event',
    description:
      'Queues the event again, whatever its status, with the same `webhook-id`; its retry schedule starts afresh. No body is needed.',
    auth: true,
    params: eventPath,
    body: { schema: emptyRequest(), required: false },
    success: { status: 202, description: 'The redelivery is queued.', schema: RedeliverySchema },
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
