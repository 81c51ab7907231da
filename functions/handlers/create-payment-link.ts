import { config } from '../config.ts';
import { keyedCreates, linkRepository, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { replayed } from '../http/api/idempotency.ts';
import { toResource } from '../http/api/resources.ts';
import { createPaymentLinkRequest } from '../http/api/schemas.ts';
import { validate } from '../http/validate.ts';
import { createKeyedLink } from '../use-cases/keyed-creates.ts';
import { createPaymentLink } from '../use-cases/payment-links.ts';

/** POST /v1/payment-links: with an `Idempotency-Key`, the link's own write holds the key. */
export const handler = apiHandler({ body: 'json', idempotent: 'own' }, async (request) => {
  const { principal, body, idempotency } = request;
  const { CHECKOUT_BASE, ALLOW_PRIVATE_TARGETS } = config();
  const parse = () => validate(createPaymentLinkRequest(principal.mode, ALLOW_PRIVATE_TARGETS), body);
  const { link, replayed: isReplay } = idempotency
    ? await createKeyedLink(keyedCreates(), principal, parse, idempotency)
    : {
        link: await createPaymentLink({ links: linkRepository(), now }, principal, parse()),
        replayed: false,
      };
  // Shown as at its creation, so that a replay (`asCreated`) answers byte for byte what the first request did.
  const response = json(201, toResource(link, CHECKOUT_BASE, new Date(link.created_at)), {
    Location: `/v1/payment-links/${link.id}`,
  });
  return isReplay ? replayed(response) : response;
});
