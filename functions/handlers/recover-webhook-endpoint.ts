import { endpointRecoveryStore, eventQueue, now, webhookEndpointRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { recoverRequest } from '../http/api/webhook-endpoint-schemas.ts';
import { validate } from '../http/validate.ts';
import { startRecovery } from '../use-cases/recovery.ts';

/** POST /v1/webhook-endpoints/{id}/recover {"since": "<RFC 3339>"}: 202, the recovery runs in the background. */
export const handler = apiHandler({ audit: apiAudit, body: 'json' }, async ({ principal, event, body }) => {
  const { since } = validate(recoverRequest(), body);
  const recovery = await startRecovery(
    { endpoints: webhookEndpointRepository(), recoveries: endpointRecoveryStore(), queue: eventQueue(), now },
    principal,
    event.pathParameters?.id ?? '',
    since,
  );
  return json(202, {
    endpoint_id: recovery.endpoint_id,
    since: recovery.since,
    status: recovery.status,
    started_at: recovery.started_at,
  });
});
