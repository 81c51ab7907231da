import { z } from 'zod';
import { MAX_LINE_ITEMS, MAX_QUANTITY } from '../domain/amount.ts';
import {
  CUSTOM_FIELD_TYPES,
  MAX_CUSTOM_FIELD_ANSWER_LENGTH,
  MAX_CUSTOM_FIELD_KEY_LENGTH,
  MAX_CUSTOM_FIELD_LABEL_LENGTH,
  MAX_CUSTOM_FIELDS,
} from '../domain/custom-fields.ts';
import { BuyerSchema, ClientReferenceIdSchema } from './buyer-response-schemas.ts';

/**
 * What the buyer gave for a payment (`buyerInputOf`), as a payment shows it (`GET /v1/payments`, `GET
 * /v1/payment-links/{id}/payments`: null when there is none) and as its events carry it (only when there is one):
 * docs/checkout.md#buyer-details, #custom-fields, #quantities.
 */
export const paymentAnswerFields = () => ({
  client_reference_id: ClientReferenceIdSchema.optional(),
  buyer: BuyerSchema.nullable().optional().meta({
    description:
      "What the buyer gave on the PSP's page or ours (personal data: erased after the retention period or on request, then only `erased_at`); null when nothing was asked or given.",
  }),
  custom_fields: z
    .array(
      z.strictObject({
        key: z.string().max(MAX_CUSTOM_FIELD_KEY_LENGTH),
        label: z.string().max(MAX_CUSTOM_FIELD_LABEL_LENGTH),
        type: z.enum(CUSTOM_FIELD_TYPES),
        value: z.string().max(MAX_CUSTOM_FIELD_ANSWER_LENGTH).meta({
          description: "As the buyer typed it (trimmed); a dropdown's option `value`.",
        }),
      }),
    )
    .max(MAX_CUSTOM_FIELDS)
    .nullable()
    .optional()
    .meta({
      description:
        "The buyer's answers to the link's `custom_fields`, each with the field's label as asked; an optional field left empty is absent. Null (absent in events): the link asks none.",
    }),
  quantities: z
    .array(z.int().min(0).max(MAX_QUANTITY).meta({ format: 'int32' }))
    .max(MAX_LINE_ITEMS)
    .nullable()
    .optional()
    .meta({
      description:
        "The quantity of each of the link's `line_items`, in their order, as charged: given when the link has a line with `adjustable_quantity` (the buyer picked them on our page); null (absent in events) otherwise.",
    }),
});
