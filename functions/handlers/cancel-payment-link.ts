import { config } from '../config.ts';
import { now } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toResource } from '../http/api/resources.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { linkEndings } from '../psp-dependencies.ts';
import { cancelPaymentLink } from '../use-cases/payment-links.ts';

/** POST /v1/payment-links/{id}/cancel (no body needed; `{}` is accepted, any field is not) */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    validate(emptyRequest(), body);
    const { CHECKOUT_BASE } = config();
    const link = await cancelPaymentLink(linkEndings(), principal, event.pathParameters?.id ?? '');
    return json(200, toResource(link, CHECKOUT_BASE, now()));
  },
);
