import { z } from 'zod';
import { checkoutSettingsRequest } from '../../functions/http/api/checkout-settings-schemas.ts';
import {
  DeletedWebhookEndpointSchema,
  EventListSchema,
  EventWithDeliveriesSchema,
  NewWebhookEndpointSchema,
  RecoverySchema,
  RotatedEndpointSecretSchema,
  TestEventOutcomeSchema,
  WebhookEndpointId,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithHealthSchema,
} from '../../functions/http/api/endpoint-response-schemas.ts';
import { listEventsQuery } from '../../functions/http/api/events-query.ts';
import { listPaymentLinksQuery } from '../../functions/http/api/list-query.ts';
import { createRefundRequest } from '../../functions/http/api/refund-schemas.ts';
import {
  CheckoutSettingsSchema,
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
} from '../../functions/http/api/response-schemas.ts';
import { ConnectionPerformanceSchema } from '../../functions/http/api/routing-response-schemas.ts';
import { performanceQuery, routingRequest, upliftQuery } from '../../functions/http/api/routing-schemas.ts';
import { createPaymentLinkRequest, updatePaymentLinkRequest } from '../../functions/http/api/schemas.ts';
import { RoutingUpliftSchema } from '../../functions/http/api/uplift-response-schemas.ts';
import {
  createWebhookEndpointRequest,
  recoverRequest,
  updateWebhookEndpointRequest,
} from '../../functions/http/api/webhook-endpoint-schemas.ts';
import { emptyRequest } from '../../functions/http/validate.ts';
import { booksOperations } from './books-operations.ts';
import type { OperationSpec } from './operation-spec.ts';
import { subscriptionOperations } from './subscription-operations.ts';

export type { OperationSpec } from './operation-spec.ts';

const linkPath = z.object({ id: PaymentLinkId.meta({ description: 'The payment link id.' }) });
const eventPath = z.object({
  id: EventId.meta({ description: 'The event id (the `webhook-id` of its deliveries).' }),
});

const endpointPath = z.object({ id: WebhookEndpointId.meta({ description: 'The webhook endpoint id.' }) });

/** Every /v1 operation, in the order of docs/api.md. To add one, see "Adding an operation" in docs/api.md. */
export const operations: OperationSpec[] = [
  {
    method: 'post',
    path: '/v1/payment-links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    description: 'Creates an open payment link in the mode of the API key and returns the whole resource.',
    auth: true,
    keyHeldByResource: true,
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
      'Cancels an open link and sends the `payment_link.canceled` webhook. Its open PSP sessions are ended first; when a PSP cannot end one, or refuses because a payment on it may still complete (a bank transfer), the link stays open and the answer is 503 `service_unavailable` with `Retry-After`. While a payment of the link is being collected by its PSP (a bank debit, which can take days: docs/orchestration.md#money-under-way), the link stays open and the cancel is 409 `invalid_state`, with no PSP asked: it can be canceled once that payment settles, which `payment_link.paid` or `payment_link.payment_failed` tells. A session found paid meanwhile is recorded first: the link is then paid (`payment_link.paid`) and the cancel is `invalid_state`. Canceling a canceled link returns it unchanged; a paid or expired link is `invalid_state`. A completed reusable link stays completed: the cancel ends the sessions other buyers still have open, by the same rules, and returns the link without an event. No body is needed; an empty JSON object is accepted.',
    auth: true,
    params: linkPath,
    body: { schema: emptyRequest(), required: false },
    success: {
      status: 200,
      description: 'The canceled payment link (a completed one: unchanged).',
      schema: PaymentLinkSchema,
    },
    errors: ['not_found', 'invalid_state', 'service_unavailable'],
  },
  {
    method: 'post',
    path: '/v1/payment-links/{id}/refunds',
    operationId: 'createRefund',
    summary: 'Refund a paid payment link',
    description:
      'Refunds all that remains of the payment (no body, or `{}`), or part of it (`amount`, in the currency of the payment), through the PSP connection that took it: the link’s own payment by default, or the one `payment_id` names (each of a reusable link’s, or a single-use link’s duplicate payment, reported by `payment_link.duplicate_payment`). The refunds of a payment never add up past what it charged, even when requested concurrently. The refund is `succeeded` or `failed` at once when the PSP answers at once, with its `refund.succeeded` or `refund.failed` webhook; otherwise it is `pending` until the PSP decides, and the same webhook follows then (the PSP’s notification, or our sweeper asking the PSP: docs/webhooks.md#refunds). Once the amount is reserved the answer is `201`, whatever fails after: a PSP refusal (e.g. already refunded in its dashboard) is a `failed` refund, and a PSP or store that cannot answer leaves it `pending`; a retry with the same `Idempotency-Key` never refunds twice. A link that is not paid is `invalid_state`; another currency, more than remains, or an amount the PSP that took the payment cannot express (some take three-decimal currencies such as KWD only in whole hundredths: docs/orchestration.md#amounts-each-psp-can-take) is `validation_failed`.',
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
    path: '/v1/psp-connections/{id}/performance',
    operationId: 'getConnectionPerformance',
    summary: "A connection's session outcomes by segment",
    description:
      'What the sessions the connection opened became (paid, failed, left) over the last hour and the last 24 hours, by segment (currency, payment method, amount band), busiest first; at most 10 s stale (docs/orchestration.md#observed-outcomes).',
    auth: true,
    params: z.object({ id: z.string().max(67).meta({ description: 'The connection id (pc_...).' }) }),
    query: performanceQuery(),
    success: { status: 200, description: 'The windows by segment.', schema: ConnectionPerformanceSchema },
    errors: ['not_found', 'validation_failed'],
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
      'Replaces the routing of the mode and returns it. `then` is `{"priority": [ids]}`, `{"split": [{"connection", "weight"}]}` or `{"optimize": "conversion"|"cost"|"value", "connections": [ids], "holdout"?: {"share", "baseline"?}}` (docs/orchestration.md#routing-that-learns; the holdout, 5% on the rule\'s own order unless named: docs/orchestration.md#holdout), each with an optional `recovery` (`auto`, `offer`, `off`); every `when` field is optional and all given ones must match; amount bounds apply to links in a currency the rule names. Unknown, removed or other-mode connection ids, empty lists, weights that are not positive integers and a holdout share outside 0 to 0.5 are 422 with pointers.',
    auth: true,
    body: { schema: routingRequest(), required: true },
    success: { status: 200, description: 'The routing now in force.', schema: routingRequest() },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/routing/uplift',
    operationId: 'getRoutingUplift',
    summary: 'What routing that learns earned',
    description:
      "For each `optimize` rule with checkouts in the window (the last 7 or 30 days, today included) and for them all together: the checkouts and paid share of the learning arm and of the holdout (drawn at random per checkout, routed by the rule's baseline), the difference in percentage points with its 95% interval (Newcombe's hybrid score interval), whether the interval excludes zero, and the extra payments and amount it implies; for rules that optimize `cost` or `value`, the same net of fees. Counted as sessions are decided, at most a few seconds late (docs/orchestration.md#uplift).",
    auth: true,
    query: upliftQuery(),
    success: { status: 200, description: 'The uplift.', schema: RoutingUpliftSchema },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/checkout-settings',
    operationId: 'getCheckoutSettings',
    summary: 'Retrieve the checkout settings',
    description:
      "The branding of the mode's checkout pages: display name, logo, accent colour and support address (docs/checkout.md#branding). Every field is null until set.",
    auth: true,
    success: { status: 200, description: 'The checkout settings.', schema: CheckoutSettingsSchema },
    errors: [],
  },
  {
    method: 'put',
    path: '/v1/checkout-settings',
    operationId: 'putCheckoutSettings',
    summary: 'Replace the checkout settings',
    description:
      'Replaces the branding of the mode whole (an absent field is cleared) and returns it. The logo must be an https URL on a public host; the accent colour must give white text a WCAG AA contrast (4.5:1). Bad fields are 422 with pointers.',
    auth: true,
    body: { schema: checkoutSettingsRequest(), required: true },
    success: {
      status: 200,
      description: 'The checkout settings now in force.',
      schema: CheckoutSettingsSchema,
    },
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
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'List events',
    description:
      "Every event of the API key's (account, mode) of the last 30 days, newest first, whether or not a webhook went anywhere: reconcile with it, or catch up after an outage (docs/webhooks.md#the-events-api). A filtered page may hold fewer than `limit` events and still have a `next_cursor`.",
    auth: true,
    query: listEventsQuery(),
    success: { status: 200, description: 'A page of events.', schema: EventListSchema },
    errors: ['validation_failed'],
  },
  {
    method: 'get',
    path: '/v1/events/{id}',
    operationId: 'getEvent',
    summary: 'Retrieve an event',
    description:
      "The event, with the delivery log of each destination: the link's `webhook_url` and each webhook endpoint it went to.",
    auth: true,
    params: eventPath,
    success: { status: 200, description: 'The event.', schema: EventWithDeliveriesSchema },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'Registers a URL that receives every event of the chosen types (`["*"]`: all), signed with a secret of its own, returned this once. At most 16 per account and mode (409 `invalid_state` beyond). `http` and private targets as for a link\'s `webhook_url` of the mode.',
    auth: true,
    body: { schema: createWebhookEndpointRequest('live', false), required: true },
    success: {
      status: 201,
      description: 'The endpoint, with its signing secret.',
      schema: NewWebhookEndpointSchema,
      headers: {
        Location: {
          description: 'The path of the new endpoint.',
          required: true,
          schema: {
            type: 'string',
            maxLength: '/v1/webhook-endpoints/'.length + WebhookEndpointId.maxLength!,
          },
        },
      },
    },
    errors: ['validation_failed', 'invalid_state'],
  },
  {
    method: 'get',
    path: '/v1/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description: 'Every webhook endpoint of the mode, oldest first (at most 16: one page).',
    auth: true,
    success: { status: 200, description: 'The endpoints.', schema: WebhookEndpointListSchema },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    description:
      'The endpoint and its health (success rate and latency of its latest 100 attempts, `failing_since`); its secret is never shown again. An endpoint that failed every attempt for 5 days is `disabled` by us.',
    auth: true,
    params: endpointPath,
    success: { status: 200, description: 'The endpoint.', schema: WebhookEndpointWithHealthSchema },
    errors: ['not_found'],
  },
  {
    method: 'patch',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint',
    description:
      'Changes `url`, `enabled_events`, `description` or `status` (`disabled` stops its deliveries; `enabled` resumes them for new events). Takes effect within a second.',
    auth: true,
    params: endpointPath,
    body: {
      schema: updateWebhookEndpointRequest('live', false),
      required: true,
      mediaTypes: ['application/json', 'application/merge-patch+json'],
    },
    success: { status: 200, description: 'The endpoint.', schema: WebhookEndpointSchema },
    errors: ['not_found', 'validation_failed'],
  },
  {
    method: 'delete',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Nothing is sent to it any more; deliveries under way end as failed.',
    auth: true,
    params: endpointPath,
    success: { status: 200, description: 'Deleted.', schema: DeletedWebhookEndpointSchema },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/rotate-secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary: "Rotate a webhook endpoint's secret",
    description:
      'Issues a new signing secret, returned this once. For 24 hours every webhook to the endpoint carries two signatures (new and previous secret), so your receiver verifies with either while you deploy the new one. No body is needed.',
    auth: true,
    params: endpointPath,
    body: { schema: emptyRequest(), required: false },
    success: { status: 200, description: 'The new secret.', schema: RotatedEndpointSecretSchema },
    errors: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/test',
    operationId: 'testWebhookEndpoint',
    summary: 'Send a test event to a webhook endpoint',
    description:
      'Sends a signed `webhook_endpoint.test` event (`data`: the endpoint) to this endpoint only, through the same delivery as every webhook, and answers with the outcome of its attempt (whatever the endpoint answered; one that has not answered within 5 seconds is reported as timed out), or `attempt: null` when none was made within about 8 seconds (the delivery goes on; `GET /v1/events/{id}` shows it). A failed test is retried on the usual schedule. A disabled endpoint is `409 invalid_state`, and so is a second test of the endpoint while one is under way. No body is needed.',
    auth: true,
    params: endpointPath,
    body: { schema: emptyRequest(), required: false },
    success: { status: 200, description: 'The outcome.', schema: TestEventOutcomeSchema },
    errors: ['not_found', 'invalid_state'],
  },
  {
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/recover',
    operationId: 'recoverWebhookEndpoint',
    summary: 'Recover what a webhook endpoint missed',
    description:
      "Re-sends, oldest first, every event created since `since` (at most 30 days back) that the endpoint subscribes to and never acknowledged with a `2xx`, with its original `webhook-id`: deliveries that failed or still wait for a retry start afresh, and events it never got (it was disabled, or did not exist yet) are delivered. It runs in the background, a page of 25 events at a time, behind other merchants' webhooks when the queue is busy. At most one recovery runs per endpoint (`409 invalid_state` meanwhile); a disabled endpoint is `409 invalid_state`.",
    auth: true,
    params: endpointPath,
    body: { schema: recoverRequest(), required: true },
    success: { status: 202, description: 'The recovery is running.', schema: RecoverySchema },
    errors: ['not_found', 'invalid_state', 'validation_failed'],
  },
  ...booksOperations,
  ...subscriptionOperations,
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
