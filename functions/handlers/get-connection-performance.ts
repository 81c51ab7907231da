import { now, observedOutcomes, pspDirectory } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { performanceQuery } from '../http/api/routing-schemas.ts';
import { validate } from '../http/validate.ts';
import { connectionPerformance } from '../use-cases/routing.ts';

/** GET /v1/psp-connections/{id}/performance?currency=&payment_method=: one connection's windows by segment. */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(performanceQuery(), event.queryStringParameters ?? {});
  const performance = await connectionPerformance(
    { psps: pspDirectory(), now, observed: observedOutcomes() },
    principal,
    event.pathParameters?.id ?? '',
    query,
  );
  return json(200, performance);
});
