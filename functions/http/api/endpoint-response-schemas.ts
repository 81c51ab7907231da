import { z } from 'zod';
import { maxIdLength } from '../../domain/ids.ts';
import { EVENT_TYPES } from '../../domain/link-events.ts';
import { EVENT_STATUSES } from '../../domain/webhook.ts';
import {
  ALL_EVENTS,
  ENDPOINT_EVENT_TYPES,
  ENDPOINT_STATUSES,
  MAX_WEBHOOK_ENDPOINTS,
  SUBSCRIBABLE_EVENT_TYPES,
} from '../../domain/webhook-endpoint.ts';
import { int32 } from './int32-schema.ts';
import {
  attemptLog,
  deliveryAttempt,
  EventId,
  nullableTimestamp,
  PaymentLinkId,
  pageOf,
  publicId,
  timestamp,
  url,
} from './response-schemas.ts';
import { MAX_ENABLED_EVENTS, MAX_ENDPOINT_DESCRIPTION_LENGTH } from './webhook-endpoint-schemas.ts';

/**
 * Response schemas of events and webhook endpoints, beside the links' in response-schemas.ts and built from
 * the same fields; like them, classic zod the handlers take as types only
 * (biome/response-schemas-as-types.grit).
 */

export const WebhookEndpointId = publicId('we');

export const WebhookEndpointSchema = z
  .strictObject({
    id: WebhookEndpointId.meta({ example: 'we_4kQ9sV2mXc8TnLw1YpA6sDeB' }),
    object: z.literal('webhook_endpoint'),
    url: url().meta({ description: 'Where the service POSTs signed events.' }),
    enabled_events: z
      .array(z.enum([ALL_EVENTS, ...SUBSCRIBABLE_EVENT_TYPES]))
      .max(MAX_ENABLED_EVENTS)
      .meta({ description: 'The event types it receives; `["*"]`: every type.' }),
    description: z.string().max(MAX_ENDPOINT_DESCRIPTION_LENGTH).nullable(),
    status: z.enum(ENDPOINT_STATUSES).meta({
      description:
        '`disabled` by you, or by us after 5 days of failing every attempt; nothing is sent to it then.',
    }),
    created_at: timestamp('RFC 3339, UTC.'),
    updated_at: timestamp('When it last changed.'),
  })
  .meta({ id: 'WebhookEndpoint', title: 'Webhook endpoint' });

const secretField = () =>
  z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]+$/)
    .max(200)
    .meta({
      description: 'The signing secret (Standard Webhooks `whsec_...`): shown this once, never again.',
    });

export const NewWebhookEndpointSchema = WebhookEndpointSchema.extend({ secret: secretField() }).meta({
  id: 'NewWebhookEndpoint',
  title: 'A new webhook endpoint, with its secret',
});

export const RotatedEndpointSecretSchema = WebhookEndpointSchema.extend({
  secret: secretField(),
  previous_secret_expires_at: timestamp('Until then the previous secret signs every webhook too.'),
}).meta({ id: 'RotatedEndpointSecret', title: 'A webhook endpoint with its new secret' });

export const WebhookEndpointListSchema = z
  .strictObject({
    data: z.array(WebhookEndpointSchema).max(MAX_WEBHOOK_ENDPOINTS).meta({ description: 'Oldest first.' }),
  })
  .meta({ id: 'WebhookEndpointList', title: 'Webhook endpoints of the mode' });

export const DeletedWebhookEndpointSchema = z
  .strictObject({ id: WebhookEndpointId, object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .meta({ id: 'DeletedWebhookEndpoint', title: 'A deleted webhook endpoint' });

export const EventSchema = z
  .strictObject({
    id: EventId.meta({ description: 'Also the `webhook-id` header of every delivery.' }),
    object: z.literal('event'),
    type: z.enum([...EVENT_TYPES, ...ENDPOINT_EVENT_TYPES]),
    created_at: timestamp('When it happened (the `timestamp` of the webhook body).'),
    link_id: PaymentLinkId.nullable().meta({
      description: 'The payment link it is about; null for endpoint events.',
    }),
    data: z.looseObject({ id: z.string().max(maxIdLength('evt')) }).meta({
      description:
        'What the webhook body carries as `data`: the payment link, the refund (with `payment_link`), or the webhook endpoint.',
    }),
  })
  .meta({ id: 'Event', title: 'Event' });

export const EventListSchema = pageOf(EventSchema, { id: 'EventList', title: 'A page of events' });

export const EventWithDeliveriesSchema = EventSchema.extend({
  deliveries: z
    .array(
      z.strictObject({
        endpoint_id: WebhookEndpointId.nullable().meta({
          description: "The webhook endpoint; null for the link's own `webhook_url`.",
        }),
        status: z.enum(EVENT_STATUSES),
        ...attemptLog(),
      }),
    )
    .max(MAX_WEBHOOK_ENDPOINTS + 1)
    .meta({
      description:
        "Each destination's delivery log: the link's `webhook_url` (when set), then each endpoint.",
    }),
}).meta({ id: 'EventWithDeliveries', title: 'Event, with its deliveries' });

export const TestEventOutcomeSchema = z
  .strictObject({
    event_id: EventId.meta({
      description: 'The test event (`webhook-id`); `GET /v1/events/{id}` shows its delivery.',
    }),
    endpoint_id: WebhookEndpointId,
    status: z.enum(EVENT_STATUSES).meta({
      description:
        '`delivered`, `failed` (410), or `pending`: no attempt yet, or a failed one that will be retried.',
    }),
    attempt: deliveryAttempt()
      .nullable()
      .meta({ description: 'The attempt; null when none was made in time.' }),
  })
  .meta({ id: 'TestEventOutcome', title: 'The outcome of a test event' });

export const RecoverySchema = z
  .strictObject({
    endpoint_id: WebhookEndpointId,
    since: timestamp('Events created since then are re-sent unless the endpoint acknowledged them.'),
    status: z.enum(['running', 'done']),
    started_at: timestamp('RFC 3339, UTC.'),
  })
  .meta({ id: 'Recovery', title: 'A recovery of a webhook endpoint' });

export const WebhookEndpointWithHealthSchema = WebhookEndpointSchema.extend({
  health: z
    .strictObject({
      attempts: int32(0, 100).meta({ description: 'Attempts counted: the latest 100.' }),
      success_rate: z
        .number()
        .min(0)
        .max(1)
        .nullable()
        .meta({ description: 'Share answered 2xx; null before any.' }),
      latency_ms: z
        .strictObject({ p50: int32(0), p95: int32(0) })
        .nullable()
        .meta({ description: 'Median and 95th percentile of their durations; null before any.' }),
      failing_since: nullableTimestamp(
        'Since when every attempt failed; null after a success. After 5 days it is disabled.',
      ),
    })
    .meta({ description: 'Of its latest 100 attempts.' }),
}).meta({ id: 'WebhookEndpointWithHealth', title: 'Webhook endpoint, with its health' });
