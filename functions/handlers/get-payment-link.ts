import { config } from '../config.ts';
import { linkRepository, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toResource } from '../http/api/resources.ts';
import { getPaymentLink } from '../use-cases/link-transitions.ts';

/** GET /v1/payment-links/{id} */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const link = await getPaymentLink(
    { links: linkRepository(), now },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, toResource(link, config().CHECKOUT_BASE, now()));
});
