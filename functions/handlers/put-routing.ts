import { now, pspDirectory } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { routingRequest } from '../http/api/routing-schemas.ts';
import { validate } from '../http/validate.ts';
import { putRouting } from '../use-cases/routing.ts';

/** PUT /v1/routing: replaces the routing of the key's mode and returns it. */
export const handler = apiHandler({ audit: apiAudit, body: 'json' }, async ({ principal, body }) =>
  json(200, await putRouting({ psps: pspDirectory(), now }, principal, validate(routingRequest(), body))),
);
