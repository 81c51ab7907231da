import { now, signingKeyCipher, webhookEndpointRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toEndpointResource } from '../http/api/endpoint-resources.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { rotateEndpointSecret } from '../use-cases/webhook-endpoints.ts';

/** POST /v1/webhook-endpoints/{id}/rotate-secret: the new secret, shown this once; the old one signs 24 h more. */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    validate(emptyRequest(), body);
    const rotated = await rotateEndpointSecret(
      { endpoints: webhookEndpointRepository(), cipher: signingKeyCipher(), now },
      principal,
      event.pathParameters?.id ?? '',
    );
    return json(200, {
      ...toEndpointResource(rotated.endpoint),
      secret: rotated.secret,
      previous_secret_expires_at: rotated.previous_secret_expires_at,
    });
  },
);
