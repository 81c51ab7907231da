import { idPattern } from '../../domain/ids.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { amountSchema } from './field-schemas.ts';

/**
 * `POST /v1/payment-links/{id}/refunds`: no body (or `{}`) refunds all that remains; `amount` refunds part.
 * `payment_id` names the payment refunded: required for a reusable link (docs/api.md#reusable-links).
 */
export const createRefundRequest = /* @__PURE__ */ once(() =>
  z.optional(
    z.strictObject({
      payment_id: z.optional(
        z.string().check(
          z.regex(idPattern('pay'), 'Must be a payment id (pay_...).'),
          z.maxLength(67),
          z.meta({
            description:
              "The succeeded payment to refund (GET .../payments lists them). Required for a reusable link; a single-use link's own payment by default.",
          }),
        ),
      ),
      amount: z.optional(
        amountSchema().check(
          z.meta({
            description:
              'At most what remains to be refunded of the payment, in the currency of the payment.',
          }),
        ),
      ),
    }),
  ),
);
