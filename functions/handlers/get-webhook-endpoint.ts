import { now, webhookEndpointRepository } from '../dependencies.ts';
import { endpointHealthView } from '../domain/webhook-endpoint.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toEndpointResource } from '../http/api/endpoint-resources.ts';
import { getWebhookEndpoint } from '../use-cases/webhook-endpoints.ts';

/** GET /v1/webhook-endpoints/{id}: the endpoint and its health. */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const endpoint = await getWebhookEndpoint(
    { endpoints: webhookEndpointRepository(), now },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, { ...toEndpointResource(endpoint), health: endpointHealthView(endpoint.stats) });
});
