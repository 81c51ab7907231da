import { MAX_QUANTITY } from '../../domain/amount.ts';
import {
  BUYER_DETAILS,
  COLLECT_REQUIREMENTS,
  isCountryCode,
  MAX_SHIPPING_COUNTRIES,
} from '../../domain/buyer.ts';
import {
  CUSTOM_FIELD_TYPES,
  MAX_CUSTOM_FIELD_ANSWER_LENGTH,
  MAX_CUSTOM_FIELD_KEY_LENGTH,
  MAX_CUSTOM_FIELD_LABEL_LENGTH,
  MAX_CUSTOM_FIELDS,
  MAX_DROPDOWN_OPTIONS,
  MAX_DROPDOWN_VALUE_LENGTH,
} from '../../domain/custom-fields.ts';
import * as z from '../../zod.ts';

/**
 * What a link asks its buyer beyond paying (docs/checkout.md#buyer-details): `collect`, `custom_fields` and a
 * line's `adjustable_quantity`, on link creation. Kept beside schemas.ts so that each file stays one concern.
 */

const requirement = (detail: string) =>
  z.optional(
    z.enum(COLLECT_REQUIREMENTS).check(
      z.meta({
        description: `Ask the buyer's ${detail}: \`required\` or \`optional\`. Absent: not asked.`,
      }),
    ),
  );

const countryCode = () =>
  z
    .string()
    .check(
      z.maxLength(2),
      z.refine(isCountryCode, 'Must be an ISO 3166-1 alpha-2 country code in capitals, such as "NL".'),
    );

export const collectSchema = () =>
  z.optional(
    z
      .strictObject({
        email: requirement('e-mail address'),
        phone: requirement('phone number'),
        billing_address: requirement('billing address'),
        shipping_address: z.optional(
          z
            .strictObject({
              countries: z.array(countryCode()).check(
                z.minLength(1),
                z.maxLength(MAX_SHIPPING_COUNTRIES),
                z.refine((codes) => new Set(codes).size === codes.length, 'Each country at most once.'),
              ),
            })
            .check(
              z.meta({
                description: 'Ask for a shipping address (always required) in one of these countries.',
              }),
            ),
        ),
      })
      .check(
        z.meta({
          description: `The buyer details to ask for (${BUYER_DETAILS.join(', ')}): on the PSP's page where it can ask them, else on ours first. Stored on the payment as \`buyer\`.`,
        }),
      ),
  );

const lengthBounds = (what: string) =>
  z.nullish(
    z
      .strictObject({
        minimum_length: z.optional(lengthBound()),
        maximum_length: z.optional(lengthBound()),
      })
      .check(
        (ctx) => {
          const { minimum_length: least, maximum_length: most } = ctx.value;
          if (least !== undefined && most !== undefined && least > most) {
            ctx.issues.push({
              code: 'custom',
              message: 'Must not be more than `maximum_length`.',
              input: least,
              path: ['minimum_length'],
            });
          }
        },
        z.meta({ description: `Bounds of the ${what} answer's length.` }),
      ),
  );

const lengthBound = () =>
  z.int().check(z.minimum(1), z.maximum(MAX_CUSTOM_FIELD_ANSWER_LENGTH), z.meta({ format: 'int32' }));

const dropdownSchema = () =>
  z.optional(
    z.strictObject({
      options: z
        .array(
          z.strictObject({
            label: z.string().check(z.minLength(1), z.maxLength(MAX_DROPDOWN_VALUE_LENGTH)),
            value: z
              .string()
              .check(
                z.minLength(1),
                z.maxLength(MAX_DROPDOWN_VALUE_LENGTH),
                z.regex(/^[A-Za-z0-9_-]+$/, 'Must be letters, digits, "_" or "-".'),
              ),
          }),
        )
        .check(
          z.minLength(1),
          z.maxLength(MAX_DROPDOWN_OPTIONS),
          z.refine(
            (options) => new Set(options.map((option) => option.value)).size === options.length,
            'Each option value at most once.',
          ),
        ),
    }),
  );

/** Each type takes its own settings object and no other's (as the PSPs' own custom fields do). */
const SETTINGS_OF_TYPE = { text: 'text', numeric: 'numeric', dropdown: 'dropdown' } as const;

const customFieldSchema = () =>
  z
    .strictObject({
      key: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(MAX_CUSTOM_FIELD_KEY_LENGTH),
          z.regex(/^[A-Za-z0-9_]+$/, 'Must be letters, digits or "_".'),
        ),
      label: z.string().check(z.minLength(1), z.maxLength(MAX_CUSTOM_FIELD_LABEL_LENGTH)),
      type: z.enum(CUSTOM_FIELD_TYPES),
      optional: z.optional(
        z.boolean().check(z.meta({ description: 'Default: false, the buyer must answer.' })),
      ),
      text: lengthBounds('text'),
      numeric: lengthBounds('numeric (digits only)'),
      dropdown: dropdownSchema(),
    })
    .check((ctx) => {
      for (const settings of Object.values(SETTINGS_OF_TYPE)) {
        const given = ctx.value[settings] !== undefined && ctx.value[settings] !== null;
        if (given && settings !== ctx.value.type) {
          ctx.issues.push({
            code: 'custom',
            message: `Only a \`${settings}\` field takes \`${settings}\`.`,
            input: ctx.value[settings],
            path: [settings],
          });
        }
      }
      if (ctx.value.type === 'dropdown' && !ctx.value.dropdown) {
        ctx.issues.push({
          code: 'custom',
          message: 'Required for a `dropdown` field.',
          input: undefined,
          path: ['dropdown'],
        });
      }
    });

export const customFieldsSchema = () =>
  z.optional(
    z.array(customFieldSchema()).check(
      z.minLength(1),
      z.maxLength(MAX_CUSTOM_FIELDS),
      (ctx) => {
        const seen = new Set<string>();
        ctx.value.forEach((field, index) => {
          if (seen.has(field.key)) {
            ctx.issues.push({
              code: 'custom',
              message: 'Each key at most once.',
              input: field.key,
              path: [index, 'key'],
            });
          }
          seen.add(field.key);
        });
      },
      z.meta({
        description: `Up to ${MAX_CUSTOM_FIELDS} questions of the merchant's own, asked on our page before the buyer goes on; the answers are on the payment.`,
      }),
    ),
  );

/** A line's quantity bounds when the merchant gives none (as the PSPs' hosted pages bound them). */
export const DEFAULT_QUANTITY_BOUNDS = { minimum: 1, maximum: 99 } as const;

const quantityBound = (description: string, fallback: number) =>
  z._default(
    z.int().check(z.minimum(1), z.maximum(MAX_QUANTITY), z.meta({ description, format: 'int32' })),
    fallback,
  );

/**
 * A line's `adjustable_quantity`: the buyer picks from `minimum` to `maximum`, starting from the line's
 * `quantity` (which must lie within them: checked with the line, schemas.ts).
 */
export const adjustableQuantitySchema = () =>
  z.nullish(
    z
      .strictObject({
        enabled: z.boolean(),
        minimum: quantityBound('The least the buyer may pick.', DEFAULT_QUANTITY_BOUNDS.minimum),
        maximum: quantityBound(
          `The most the buyer may pick, at most ${MAX_QUANTITY}.`,
          DEFAULT_QUANTITY_BOUNDS.maximum,
        ),
      })
      .check(
        (ctx) => {
          if (ctx.value.minimum > ctx.value.maximum) {
            ctx.issues.push({
              code: 'custom',
              message: 'Must not be more than `maximum`.',
              input: ctx.value.minimum,
              path: ['minimum'],
            });
          }
        },
        z.meta({
          description:
            'Lets the buyer pick the quantity on our page; the amount is the sum of the lines as picked (docs/checkout.md#quantities).',
        }),
      ),
  );
