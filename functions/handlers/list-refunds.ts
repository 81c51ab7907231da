import { linkRepository, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { listRefunds } from '../use-cases/refunds.ts';

/** GET /v1/payment-links/{id}/refunds */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const refunds = await listRefunds(
    { links: linkRepository(), now },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, { data: refunds });
});
