import { config } from '../config.ts';
import { eventQueue, linkRepository, now, paymentRepository, refundLedger } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { IDEMPOTENCY_KEY_HEADER } from '../http/api/idempotency.ts';
import { createRefundRequest } from '../http/api/refund-schemas.ts';
import { validate } from '../http/validate.ts';
import { paymentRefunds } from '../psp-dependencies.ts';
import { createRefund, refundIdFor } from '../use-cases/refunds.ts';

/** POST /v1/payment-links/{id}/refunds */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    const request = validate(createRefundRequest(), body);
    const linkId = event.pathParameters?.id ?? '';
    const idempotencyKey = event.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    const refund = await createRefund(
      {
        links: linkRepository(),
        ledger: refundLedger(),
        payments: paymentRepository(),
        queue: eventQueue(),
        refunds: paymentRefunds(),
        now,
        checkoutBase: config().CHECKOUT_BASE,
      },
      principal,
      linkId,
      request?.amount,
      refundIdFor(principal, linkId, idempotencyKey),
      request?.payment_id,
      request?.reason && { reason: request.reason, reason_detail: request.reason_detail },
    );
    return json(201, refund);
  },
);
