import type { z } from 'zod';
import { ATTEMPTS_KEPT, attemptCount, type StoredEvent } from '../../domain/webhook.ts';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import type {
  EventListSchema,
  EventSchema,
  EventWithDeliveriesSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
} from './endpoint-response-schemas.ts';

/** The endpoint as the API returns it: the documented schema's type (response-schemas.ts). */
export type WebhookEndpointResource = z.infer<typeof WebhookEndpointSchema>;
export type WebhookEndpointListResource = z.infer<typeof WebhookEndpointListSchema>;
export type EventResource = z.infer<typeof EventSchema>;
export type EventListResource = z.infer<typeof EventListSchema>;
export type EventWithDeliveriesResource = z.infer<typeof EventWithDeliveriesSchema>;

export function toEndpointResource(endpoint: WebhookEndpoint): WebhookEndpointResource {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    enabled_events: endpoint.enabled_events as WebhookEndpointResource['enabled_events'],
    description: endpoint.description,
    status: endpoint.status,
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
  };
}

export function toEventResource(event: StoredEvent): EventResource {
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.created_at,
    link_id: event.link_id ?? null,
    data: event.data as unknown as EventResource['data'],
  };
}

export function toEventWithDeliveries(
  event: StoredEvent,
  deliveries: readonly StoredEvent[],
): EventWithDeliveriesResource {
  return {
    ...toEventResource(event),
    deliveries: deliveries.map((delivery) => ({
      endpoint_id: delivery.endpoint_id ?? null,
      status: delivery.status,
      attempts: delivery.attempts.slice(-ATTEMPTS_KEPT),
      attempt_count: attemptCount(delivery),
    })),
  };
}
