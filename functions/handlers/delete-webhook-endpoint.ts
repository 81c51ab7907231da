import { now, webhookEndpointRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { deleteWebhookEndpoint } from '../use-cases/webhook-endpoints.ts';

/** DELETE /v1/webhook-endpoints/{id} */
export const handler = apiHandler({ audit: apiAudit, body: 'none' }, async ({ principal, event }) => {
  const id = event.pathParameters?.id ?? '';
  await deleteWebhookEndpoint({ endpoints: webhookEndpointRepository(), now }, principal, id);
  return json(200, { id, object: 'webhook_endpoint', deleted: true });
});
