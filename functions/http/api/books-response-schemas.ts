import { z } from 'zod';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../domain/personal-data.ts';
import { MODES } from '../../domain/principal.ts';
import { BuyerSchema } from './buyer-response-schemas.ts';
import { int32 } from './int32-schema.ts';
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

export const AccountSettingsSchema = z
  .strictObject({
    object: z.literal('account_settings'),
    mode: z.enum(MODES),
    personal_data_retention_days: int32(MIN_RETENTION_DAYS, MAX_RETENTION_DAYS).meta({
      description: "Days after a payment's creation that its buyer's details are erased (default 400).",
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
