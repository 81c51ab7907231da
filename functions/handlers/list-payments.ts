import { linkRepository, now, paymentRepository } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { listPayments } from '../use-cases/payments.ts';

/** GET /v1/payment-links/{id}/payments: every attempt to pay the link, newest first. */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const data = await listPayments(
    { links: linkRepository(), payments: paymentRepository(), now },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, { data });
});
