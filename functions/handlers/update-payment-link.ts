import { config } from '../config.ts';
import { linkRepository, now, paymentRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toResource } from '../http/api/resources.ts';
import { updatePaymentLinkRequest } from '../http/api/schemas.ts';
import { validate } from '../http/validate.ts';
import { pspConnections } from '../psp-dependencies.ts';
import { updatePaymentLink } from '../use-cases/payment-links.ts';

/** PATCH /v1/payment-links/{id} */
export const handler = apiHandler(
  { audit: apiAudit, body: 'merge-patch' },
  async ({ principal, event, body }) => {
    const { CHECKOUT_BASE, ALLOW_PRIVATE_TARGETS } = config();
    const changes = validate(updatePaymentLinkRequest(principal.mode, ALLOW_PRIVATE_TARGETS), body);
    const link = await updatePaymentLink(
      { links: linkRepository(), payments: paymentRepository(), pspSessions: pspConnections(), now },
      principal,
      event.pathParameters?.id ?? '',
      changes,
    );
    return json(200, toResource(link, CHECKOUT_BASE, now()));
  },
);
