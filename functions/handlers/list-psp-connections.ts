import { now, observedOutcomes, pspDirectory } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { listConnections } from '../use-cases/routing.ts';

/** GET /v1/psp-connections: the caller's connections in its mode, with their health, fees and performance. */
export const handler = apiHandler({ body: 'none' }, async ({ principal }) =>
  json(200, {
    data: await listConnections({ psps: pspDirectory(), now, observed: observedOutcomes() }, principal),
  }),
);
