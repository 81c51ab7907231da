import { now, webhookEndpointRepository } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toEndpointResource, type WebhookEndpointListResource } from '../http/api/endpoint-resources.ts';
import { listWebhookEndpoints } from '../use-cases/webhook-endpoints.ts';

/** GET /v1/webhook-endpoints: every endpoint of the key's mode, oldest first (at most 16: no paging). */
export const handler = apiHandler({ body: 'none' }, async ({ principal }) => {
  const endpoints = await listWebhookEndpoints({ endpoints: webhookEndpointRepository(), now }, principal);
  return json(200, { data: endpoints.map(toEndpointResource) } satisfies WebhookEndpointListResource);
});
