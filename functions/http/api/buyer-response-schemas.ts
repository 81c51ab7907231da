import { z } from 'zod';
import { MAX_LINE_ITEMS, MAX_QUANTITY } from '../../domain/amount.ts';
import { BUYER_TEXT_LIMITS, COLLECT_REQUIREMENTS, MAX_SHIPPING_COUNTRIES } from '../../domain/buyer.ts';
import { CLIENT_REFERENCE_ID_PATTERN } from '../../domain/buyer-references.ts';
import {
  CUSTOM_FIELD_TYPES,
  MAX_CUSTOM_FIELD_ANSWER_LENGTH,
  MAX_CUSTOM_FIELD_KEY_LENGTH,
  MAX_CUSTOM_FIELD_LABEL_LENGTH,
  MAX_CUSTOM_FIELDS,
  MAX_DROPDOWN_OPTIONS,
  MAX_DROPDOWN_VALUE_LENGTH,
} from '../../domain/custom-fields.ts';
import { int32 } from './int32-schema.ts';

/**
 * What a link asks its buyer and what a payment knows of them, as the API shows them (docs/api.md): the link's
 * `collect`, `custom_fields` and lines' `adjustable_quantity`, and a payment's `buyer`.
 */

const country = () =>
  z
    .string()
    .regex(/^[A-Z]{2}$/)
    .max(BUYER_TEXT_LIMITS.country);

export const CollectSchema = z
  .strictObject({
    email: z.enum(COLLECT_REQUIREMENTS).optional(),
    phone: z.enum(COLLECT_REQUIREMENTS).optional(),
    billing_address: z.enum(COLLECT_REQUIREMENTS).optional(),
    shipping_address: z
      .strictObject({ countries: z.array(country()).max(MAX_SHIPPING_COUNTRIES) })
      .optional(),
  })
  .nullable()
  .meta({ description: 'The buyer details asked for, as sent; null: none. Not in webhooks.' });

const lengthBounds = z
  .strictObject({
    minimum_length: int32(1, MAX_CUSTOM_FIELD_ANSWER_LENGTH).optional(),
    maximum_length: int32(1, MAX_CUSTOM_FIELD_ANSWER_LENGTH).optional(),
  })
  .nullable();

export const CustomFieldsSchema = z
  .array(
    z.strictObject({
      key: z.string().max(MAX_CUSTOM_FIELD_KEY_LENGTH),
      label: z.string().max(MAX_CUSTOM_FIELD_LABEL_LENGTH),
      type: z.enum(CUSTOM_FIELD_TYPES),
      optional: z.boolean(),
      text: lengthBounds.optional(),
      numeric: lengthBounds.optional(),
      dropdown: z
        .strictObject({
          options: z
            .array(
              z.strictObject({
                label: z.string().max(MAX_DROPDOWN_VALUE_LENGTH),
                value: z.string().max(MAX_DROPDOWN_VALUE_LENGTH),
              }),
            )
            .max(MAX_DROPDOWN_OPTIONS),
        })
        .optional(),
    }),
  )
  .max(MAX_CUSTOM_FIELDS)
  .nullable()
  .meta({ description: "The merchant's own questions to the buyer; null: none. Not in webhooks." });

export const AdjustableQuantitySchema = z
  .strictObject({
    enabled: z.boolean(),
    minimum: int32(1, MAX_QUANTITY),
    maximum: int32(1, MAX_QUANTITY),
  })
  .nullable()
  .meta({ description: 'The bounds within which the buyer picks the quantity; null: fixed.' });

const address = z
  .strictObject({
    line1: z.string().max(BUYER_TEXT_LIMITS.line1),
    line2: z.string().max(BUYER_TEXT_LIMITS.line2).optional(),
    city: z.string().max(BUYER_TEXT_LIMITS.city),
    postal_code: z.string().max(BUYER_TEXT_LIMITS.postal_code).optional(),
    state: z.string().max(BUYER_TEXT_LIMITS.state).optional(),
    country: country(),
  })
  .optional();

/** A payment's buyer: what the buyer gave, or only when it was erased (docs/security.md#personal-data). */
export const BuyerSchema = z
  .union([
    z.strictObject({
      email: z.string().max(BUYER_TEXT_LIMITS.email).optional(),
      name: z.string().max(BUYER_TEXT_LIMITS.name).optional(),
      phone: z
        .string()
        .max(BUYER_TEXT_LIMITS.phone)
        .optional()
        .meta({ description: 'E.164, such as "+31612345678".' }),
      billing_address: address,
      shipping_address: address,
    }),
    z.strictObject({ erased_at: z.string().max(35) }),
  ])
  .meta({
    description:
      "What the buyer gave on the PSP's page or ours (personal data; erased after the retention period or on request, then only `erased_at`).",
  });

/** A payment's `client_reference_id` (docs/api.md#buyer-references). */
export const ClientReferenceIdSchema = z
  .string()
  .regex(CLIENT_REFERENCE_ID_PATTERN)
  .max(200)
  .nullable()
  .meta({
    description:
      'The `client_reference_id` of the checkout address the buyer opened: buyer-supplied and unverified (anyone with the link can put any value there); null when the address carried none or a malformed one.',
  });

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
  quantities: z.array(int32(0, MAX_QUANTITY)).max(MAX_LINE_ITEMS).nullable().optional().meta({
    description:
      "The quantity of each of the link's `line_items`, in their order, as charged: given when the link has a line with `adjustable_quantity` (the buyer picked them on our page); null (absent in events) otherwise.",
  }),
});
