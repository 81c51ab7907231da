import { z } from 'zod';
import { MAX_AMOUNT_VALUE_LENGTH } from '../../domain/money.ts';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../domain/personal-data.ts';
import { MODES } from '../../domain/principal.ts';
import { MAX_TIME_ZONE_LENGTH } from '../../domain/time-zones.ts';
import { BuyerSchema } from './buyer-response-schemas.ts';
import { int32 } from './int32-schema.ts';
import { MAX_CURSOR_LENGTH } from './list-query.ts';
import {
  nullableTimestamp,
  PaymentLinkId,
  PaymentSchema,
  pageOf,
  publicId,
  RefundSchema,
  timestamp,
} from './response-schemas.ts';

// Response schemas of the account-wide books and of personal data (docs/api.md#books), beside
// response-schemas.ts as endpoint-response-schemas.ts is; only their types reach a handler.

/** As many currencies as ISO 4217 has codes: a bound, not an expectation. */
const MAX_SUMMARY_CURRENCIES = 300;

/** A decimal amount in a currency named beside it; negative only where said. */
const decimal = (description: string, example: string) =>
  z
    .string()
    .max(MAX_AMOUNT_VALUE_LENGTH + 1)
    .meta({ description, example });

const reference = () =>
  z.string().max(200).nullable().meta({
    description:
      "The buyer's `client_reference_id` from the checkout URL: buyer-supplied, unverified, personal data (null once erased).",
  });

export const BookPaymentSchema = PaymentSchema.extend({
  link_id: PaymentLinkId.meta({ description: 'The payment link paid.' }),
  client_reference_id: reference(),
  buyer: BuyerSchema.nullable().meta({ description: 'What the buyer gave; null when nothing was asked.' }),
}).meta({ id: 'BookPayment', title: 'Payment (in the account-wide list)' });

export const BookPaymentListSchema = pageOf(BookPaymentSchema, {
  id: 'BookPaymentList',
  title: 'A page of payments',
});

export const BookRefundSchema = RefundSchema.extend({
  connection_id: publicId('pc').meta({ description: 'The PSP connection that took the payment refunded.' }),
  client_reference_id: reference(),
}).meta({ id: 'BookRefund', title: 'Refund (in the account-wide list)' });

export const BookRefundListSchema = pageOf(BookRefundSchema, {
  id: 'BookRefundList',
  title: 'A page of refunds',
});

export const PaymentSummarySchema = z
  .strictObject({
    object: z.literal('payment_summary'),
    created_gte: nullableTimestamp(
      'The start of the period as compared (a date given is the start of that day in the account time zone); null: none.',
    ),
    created_lt: nullableTimestamp('The end of the period as compared, excluded; null: none.'),
    currencies: z
      .array(
        z.strictObject({
          currency: z
            .string()
            .regex(/^[A-Z]{3}$/)
            .max(3),
          count: int32(0).meta({ description: 'Succeeded payments counted.' }),
          gross: decimal('What they charged.', '1250.00'),
          refunded: decimal('What their succeeded refunds gave back (their `amount_refunded`).', '39.90'),
          fees: decimal('Their fees (`fee`, in this currency).', '17.75'),
          net: decimal(
            'What stays: `gross` less `refunded` less `fees` (negative when fees outweigh what was kept).',
            '1192.35',
          ),
          payments_without_fee: int32(0).meta({
            description:
              'Payments counted without a fee: none known (no PSP report, no fee line that applies).',
          }),
        }),
      )
      .max(MAX_SUMMARY_CURRENCIES)
      .meta({ description: 'One entry per currency that succeeded payments were in, by code.' }),
    next_cursor: z.string().max(MAX_CURSOR_LENGTH).nullable().meta({
      description:
        'Null when the totals cover the whole period. Otherwise the read stopped at its bound (10,000 payments): the same request with `cursor` set to this gives the totals of the rest, to add to these.',
    }),
  })
  .meta({ id: 'PaymentSummary', title: 'Totals of payments per currency' });

export const AccountSettingsSchema = z
  .strictObject({
    object: z.literal('account_settings'),
    mode: z.enum(MODES),
    personal_data_retention_days: int32(MIN_RETENTION_DAYS, MAX_RETENTION_DAYS).meta({
      description: "Days after a payment's creation that its buyer's details are erased (default 400).",
    }),
    time_zone: z.string().max(MAX_TIME_ZONE_LENGTH).meta({
      description:
        "The IANA time zone in which a date of the books' filters is a day (`created[gte]=2026-11-29`); default UTC.",
      example: 'Europe/Amsterdam',
    }),
    updated_at: nullableTimestamp('When they were last replaced; null when never set.'),
  })
  .meta({ id: 'AccountSettings', title: 'Account settings' });

export const BuyerErasureSchema = z
  .strictObject({
    object: z.literal('buyer_erasure'),
    payment_id: publicId('pay'),
    erased_at: timestamp('When the details were erased (the first erasure, when repeated).'),
    payment_ids: z.array(publicId('pay')).meta({
      description:
        "The payments this request erased: this one first, then the buyer's other attempts on its link that still held details (same `client_reference_id`, or the same browser's buyer cookie).",
    }),
  })
  .meta({ id: 'BuyerErasure', title: "The erasure of a payment's buyer details" });
