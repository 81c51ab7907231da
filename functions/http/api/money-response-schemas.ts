import { z } from 'zod';
import { MAX_AMOUNT_VALUE_LENGTH } from '../../domain/money.ts';
import { FEE_SOURCES, REFUND_STATES } from '../../domain/payment-money.ts';

// What money a payment and a link moved, as the API shows it (docs/api.md#fees-and-refunds-of-a-payment): beside
// response-schemas.ts, which builds the payment's and the link's schemas with these fields.

/** An amount: a decimal string and an ISO 4217 code. */
export const money = (valueDescription: string, example: string) =>
  z.strictObject({
    value: z.string().max(MAX_AMOUNT_VALUE_LENGTH).meta({ description: valueDescription, example }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .max(3)
      .meta({ example: 'EUR' }),
  });

const refundStatus = (of: string) =>
  z.enum(REFUND_STATES).meta({
    description: `How much of ${of} succeeded refunds gave back: \`none\`, \`partial\` or \`full\`.`,
  });

/** A payment's refunds and fee. */
export const paymentMoneyFields = () => ({
  amount_refunded: money('In the currency decimals.', '39.90').meta({
    description:
      'What succeeded refunds of this payment gave back, in its currency: "0.00" until one succeeds (a reversed refund no longer counts).',
  }),
  refund_status: refundStatus('`amount`'),
  fee: money('In the currency decimals.', '0.39').nullable().meta({
    description:
      "What the PSP charges for the payment: as the PSP reported it, or the estimate of the connection's fee lines (`fee_source`); recorded when it succeeded. Null: not succeeded, or no fee known.",
  }),
  net: money('In the currency decimals.', '9.61').nullable().meta({
    description:
      'What the PSP credits for the payment: `amount` less `fee`, before any refund. Null with `fee`.',
  }),
  fee_source: z.enum(FEE_SOURCES).nullable().meta({
    description:
      "`reported` by the PSP, or `configured`: estimated from the connection's fee lines (`npm run psp -- fees`). Null with `fee`.",
  }),
});

/** A link's totals over its succeeded payments. */
export const linkMoneyFields = () => ({
  amount_received: money('In the currency decimals.', '25.00').meta({
    description:
      'What its succeeded payments charged, together (a reusable link: each of them), in the currency of the link: "0.00" until one succeeds.',
  }),
  refund_status: refundStatus('`amount_received`'),
});
