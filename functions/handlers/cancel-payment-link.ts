import { z } from 'zod';
import { config } from '../config.ts';
import { eventQueue, linkRepository, now } from '../dependencies.ts';
import { toResource } from '../domain/payment-link.ts';
import { apiHandler, json } from '../http/api-handler.ts';
import { validate } from '../http/validate.ts';
import { cancelPaymentLink } from '../use-cases/payment-links.ts';

const CancelRequest = z.strictObject({}).optional();

/** POST /v1/payment-links/{id}/cancel (no body needed; `{}` is accepted, any field is not) */
export const handler = apiHandler(
  { auth: true, body: 'optional-json' },
  async ({ principal, event, body }) => {
    validate(CancelRequest, body);
    const { CHECKOUT_BASE } = config();
    const link = await cancelPaymentLink(
      // LEAD: add `pspSessions: <the PSP port>` here once it is merged (expires the open PSP session).
      { links: linkRepository(), queue: eventQueue(), now, checkoutBase: CHECKOUT_BASE },
      principal,
      event.pathParameters?.id ?? '',
    );
    return json(200, toResource(link, CHECKOUT_BASE, now()));
  },
);
