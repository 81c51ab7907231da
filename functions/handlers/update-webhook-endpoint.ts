import { config } from '../config.ts';
import { now, webhookEndpointRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toEndpointResource } from '../http/api/endpoint-resources.ts';
import { updateWebhookEndpointRequest } from '../http/api/webhook-endpoint-schemas.ts';
import { validate } from '../http/validate.ts';
import { updateWebhookEndpoint } from '../use-cases/webhook-endpoints.ts';

/** PATCH /v1/webhook-endpoints/{id} */
export const handler = apiHandler(
  { audit: apiAudit, body: 'merge-patch' },
  async ({ principal, event, body }) => {
    const changes = validate(
      updateWebhookEndpointRequest(principal.mode, config().ALLOW_PRIVATE_TARGETS),
      body,
    );
    const endpoint = await updateWebhookEndpoint(
      { endpoints: webhookEndpointRepository(), now },
      principal,
      event.pathParameters?.id ?? '',
      changes,
    );
    return json(200, toEndpointResource(endpoint));
  },
);
