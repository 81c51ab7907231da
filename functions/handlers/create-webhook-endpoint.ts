import { config } from '../config.ts';
import { now, signingKeyCipher, webhookEndpointRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toEndpointResource } from '../http/api/endpoint-resources.ts';
import { createWebhookEndpointRequest } from '../http/api/webhook-endpoint-schemas.ts';
import { validate } from '../http/validate.ts';
import { createWebhookEndpoint } from '../use-cases/webhook-endpoints.ts';

/** POST /v1/webhook-endpoints: the new endpoint, with its signing secret shown this once. */
export const handler = apiHandler({ audit: apiAudit, body: 'json' }, async ({ principal, body }) => {
  const input = validate(createWebhookEndpointRequest(principal.mode, config().ALLOW_PRIVATE_TARGETS), body);
  const { endpoint, secret } = await createWebhookEndpoint(
    { endpoints: webhookEndpointRepository(), cipher: signingKeyCipher(), now },
    principal,
    input,
  );
  return json(
    201,
    { ...toEndpointResource(endpoint), secret },
    { Location: `/v1/webhook-endpoints/${endpoint.id}` },
  );
});
