import { idPattern } from '../../domain/ids.ts';
import { REFUND_REASONS } from '../../domain/payment-link.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { amountSchema } from './field-schemas.ts';

/**
 * `POST /v1/payment-links/{id}/refunds`: no body (or `{}`) refunds all that remains; `amount` refunds part.
 * `payment_id` names the payment refunded: required for a reusable link (docs/api.md#reusable-links); on a
 * single-use link its own payment or a duplicate payment (docs/orchestration.md#duplicate-payments).
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
              "The succeeded payment to refund (GET .../payments lists them). Required for a reusable link; a single-use link's own payment by default, or its duplicate payment (`payment_link.duplicate_payment`).",
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
      reason: z.optional(
        z.enum(REFUND_REASONS).check(
          z.meta({
            description:
              'Why: stored on the refund and handed to the PSP with it (docs/webhooks.md#refunds).',
          }),
        ),
      ),
      reason_detail: z.optional(
        z
          .string()
          .check(
            z.minLength(1),
            z.maxLength(500),
            z.meta({ description: 'The reason in your own words, with `reason` (`other` above all).' }),
          ),
      ),
    }),
  ),
);
