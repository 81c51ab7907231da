import { now, pspDirectory } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { getRouting } from '../use-cases/routing.ts';

/** GET /v1/routing: the routing in force for the key's mode. */
export const handler = apiHandler({ body: 'none' }, async ({ principal }) =>
  json(200, await getRouting({ psps: pspDirectory(), now }, principal)),
);
