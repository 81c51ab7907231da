import { config } from '../config.ts';
import { linkRepository, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api-handler.ts';
import { toResource } from '../http/resources.ts';
import { createPaymentLinkRequest } from '../http/schemas.ts';
import { validate } from '../http/validate.ts';
import { createPaymentLink } from '../use-cases/payment-links.ts';

/** POST /v1/payment-links */
export const handler = apiHandler({ body: 'json' }, async ({ principal, body }) => {
  const { CHECKOUT_BASE, ALLOW_PRIVATE_TARGETS } = config();
  const input = validate(createPaymentLinkRequest(principal.mode, ALLOW_PRIVATE_TARGETS), body);
  const link = await createPaymentLink({ links: linkRepository(), now }, principal, input);
  return json(201, toResource(link, CHECKOUT_BASE, now()), { Location: `/v1/payment-links/${link.id}` });
});
