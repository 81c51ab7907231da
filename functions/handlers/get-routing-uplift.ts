import { armCounterStore, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { upliftQuery } from '../http/api/routing-schemas.ts';
import { validate } from '../http/validate.ts';
import { routingUpliftOf } from '../use-cases/routing-uplift.ts';

/** GET /v1/routing/uplift?window=7d|30d&rule=: what learning earned against its holdout, per rule and together. */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(upliftQuery(), event.queryStringParameters ?? {});
  return json(200, await routingUpliftOf({ arms: armCounterStore(), now }, principal, query));
});
