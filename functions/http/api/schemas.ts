import {
  type LineItem,
  lineItemsTotal,
  MAX_LINE_ITEM_NAME_LENGTH,
  MAX_LINE_ITEMS,
  MAX_QUANTITY,
  rangeProblems,
  totalProblem,
} from '../../domain/amount.ts';
import { idPattern } from '../../domain/ids.ts';
import { MAX_PAYMENTS_PER_LINK } from '../../domain/link-payments.ts';
import { LOCALE_PATTERN, MAX_LOCALE_LENGTH, PAGE_LANGUAGES } from '../../domain/locale.ts';
import { amountValueProblem, isPayableCurrency } from '../../domain/money.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import type { Mode } from '../../domain/principal.ts';
import type { UrlPolicy } from '../../domain/urls.ts';
import * as z from '../../zod.ts';
import { adjustableQuantitySchema, collectSchema, customFieldsSchema } from './buyer-question-schemas.ts';
import { amountSchema, currencySchema, decimalValueSchema, urlSchema } from './field-schemas.ts';
import {
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
} from './metadata-limits.ts';

/**
 * Payment link request schemas (the fields they share in field-schemas.ts, refunds in refund-schemas.ts): the
 * same zod objects validate requests and generate the OpenAPI document, so the document cannot drift from what
 * is enforced. Objects are strict: an unknown field (say `redirectUrl`) is an error.
 * Built on first use and cached (`createPaymentLinkRequest`), not at import: zod schemas cost time to build.
 */
export const MAX_DESCRIPTION_LENGTH = 255;
export const MAX_EXPIRY_DAYS = 365;
/** RFC 3339 to the nanosecond with an offset (`2026-01-31T23:59:59.123456789+01:00`); longer is no timestamp. */
export const MAX_TIMESTAMP_LENGTH = 35;

/** `amount_range`: the buyer chooses the amount on our page, within these bounds (functions/domain/amount.ts). */
const amountRangeSchema = () =>
  z.optional(
    z
      .strictObject({
        currency: currencySchema(),
        minimum: decimalValueSchema('The least the buyer may pay.', '5.00'),
        maximum: decimalValueSchema('The most the buyer may pay.', '500.00'),
        suggested: z.nullish(
          decimalValueSchema('Filled in for the buyer, who may change it (absent: an empty field).', '25.00'),
        ),
      })
      .check(
        (ctx) => {
          // The order of the bounds means something only once each is a payable amount on its own.
          const { currency, minimum, maximum, suggested } = ctx.value;
          const values = [minimum, maximum, suggested ?? '1'];
          if (!isPayableCurrency(currency) || values.some((value) => amountValueProblem(value))) return;
          for (const problem of rangeProblems(ctx.value)) {
            ctx.issues.push({
              code: 'custom',
              message: problem.detail,
              input: ctx.value[problem.field],
              path: [problem.field],
            });
          }
        },
        z.meta({
          description:
            "Instead of `amount`: the buyer chooses what to pay on the checkout page, from `minimum` to `maximum` (inclusive), in the currency's minor units.",
        }),
      ),
  );

const metadataSchema = () =>
  z.pipe(
    z.transform((raw: unknown, ctx) => {
      // zod drops an own `__proto__` key silently; reject it instead, since it could not be echoed back.
      if (raw !== null && typeof raw === 'object' && Object.hasOwn(raw, '__proto__')) {
        ctx.issues.push({
          code: 'custom',
          message: 'This key name is reserved.',
          input: raw,
          path: ['__proto__'],
        });
      }
      return raw;
    }),
    z
      .record(
        z.string().check(z.minLength(1), z.maxLength(MAX_METADATA_KEY_LENGTH)),
        z.string().check(z.maxLength(MAX_METADATA_VALUE_LENGTH)),
      )
      .check(
        z.refine(
          (metadata) => Object.keys(metadata).length <= MAX_METADATA_KEYS,
          `At most ${MAX_METADATA_KEYS} keys.`,
        ),
        z.refine(
          (metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES,
          `At most ${MAX_METADATA_BYTES} bytes in all, as JSON in UTF-8.`,
        ),
      ),
  );

/** The fields a merchant sets on a link, on creation and on update alike (same rules, same messages). */
function linkFieldSchemas(policy: UrlPolicy) {
  return {
    description: z.nullish(
      z.string().check(z.maxLength(MAX_DESCRIPTION_LENGTH), z.meta({ description: 'Shown to the buyer.' })),
    ),
    redirect_url: z.nullish(urlSchema(policy, 'Where the buyer returns after paying.')),
    webhook_url: z.nullish(urlSchema(policy, 'Where the service POSTs signed status events.')),
    metadata: z.nullish(metadataSchema()).check(
      z.meta({
        description: `String keys and values, echoed back: at most ${MAX_METADATA_KEYS} keys, and ${MAX_METADATA_BYTES} bytes in all as JSON.`,
      }),
    ),
    locale: z.nullish(
      z.string().check(
        z.regex(
          LOCALE_PATTERN,
          `Must be one of ${PAGE_LANGUAGES.join(', ')}, optionally with a region (nl-BE).`,
        ),
        z.meta({
          description: `The language of the checkout pages and the PSP's page: ${PAGE_LANGUAGES.join(', ')}, optionally with a region such as \`nl-BE\`. Absent: the buyer's \`Accept-Language\`.`,
          maxLength: MAX_LOCALE_LENGTH,
          example: 'nl',
        }),
      ),
    ),
    expires_at: z.nullish(
      z.iso.datetime({ offset: true }).check(
        z.maxLength(MAX_TIMESTAMP_LENGTH),
        (ctx) => {
          const at = Date.parse(ctx.value);
          const now = Date.now();
          if (at <= now)
            ctx.issues.push({ code: 'custom', message: 'Must be in the future.', input: ctx.value });
          else if (at > now + MAX_EXPIRY_DAYS * 86_400_000) {
            ctx.issues.push({
              code: 'custom',
              message: `Must be at most ${MAX_EXPIRY_DAYS} days ahead.`,
              input: ctx.value,
            });
          }
        },
        z.meta({ description: 'RFC 3339 time after which the link can no longer be paid.' }),
      ),
    ),
  };
}

/** Most connections a link may name for itself. */
export const MAX_LINK_CONNECTIONS = 20;

/** The optional `connections` of a new link: the connections that serve it, in order, instead of routing. */
const linkConnectionsSchema = () =>
  z.optional(
    z
      .array(z.string().check(z.regex(idPattern('pc'), 'Must be a connection id (pc_...).'), z.maxLength(67)))
      .check(
        z.minLength(1),
        z.maxLength(MAX_LINK_CONNECTIONS),
        z.meta({
          description: 'Connections (pc_...) that serve this link, in this order, instead of the routing.',
        }),
      ),
  );

/** A percentage with at most two decimals, 0 to 100: "21", "5.5", "0". */
const TAX_RATE_PATTERN = /^(100(\.0{1,2})?|[1-9]?[0-9](\.[0-9]{1,2})?)$/;

const lineItemSchema = () =>
  z
    .strictObject({
      name: z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(MAX_LINE_ITEM_NAME_LENGTH),
          z.meta({ description: 'Shown to the buyer and sent to the PSP.' }),
        ),
      quantity: z
        .int()
        .check(
          z.minimum(1),
          z.maximum(MAX_QUANTITY),
          z.meta({ description: `How many, 1 to ${MAX_QUANTITY}.`, format: 'int32' }),
        ),
      unit_amount: amountSchema().check(
        z.meta({ description: 'The price of one, tax included; every line in the same currency.' }),
      ),
      tax_rate: z.nullish(
        z.string().check(
          z.regex(
            TAX_RATE_PATTERN,
            'Must be a percentage from 0 to 100 with at most 2 decimals, such as "21".',
          ),
          z.meta({
            description: 'The tax included in `unit_amount`, in percent ("21" for 21 %).',
            maxLength: 6,
          }),
        ),
      ),
      adjustable_quantity: adjustableQuantitySchema(),
    })
    .check((ctx) => {
      const { quantity, adjustable_quantity: bounds } = ctx.value;
      if (bounds?.enabled && (quantity < bounds.minimum || quantity > bounds.maximum)) {
        ctx.issues.push({
          code: 'custom',
          message: `Must lie within \`adjustable_quantity\`: ${bounds.minimum} to ${bounds.maximum}.`,
          input: quantity,
          path: ['quantity'],
        });
      }
    });

/** The lines at the most each buyer may pick: what a link of adjustable lines can charge at most. */
const atMostPicked = (items: readonly LineItem[]): LineItem[] =>
  items.map((item) =>
    item.adjustable_quantity?.enabled ? { ...item, quantity: item.adjustable_quantity.maximum } : item,
  );

/** `line_items`: their sum is the link's amount, in their one currency (functions/domain/amount.ts). */
const lineItemsSchema = () =>
  z.optional(
    z.array(lineItemSchema()).check(
      z.minLength(1),
      z.maxLength(MAX_LINE_ITEMS),
      (ctx) => {
        const currency = ctx.value[0]?.unit_amount.currency;
        ctx.value.forEach((item, index) => {
          if (item.unit_amount.currency !== currency) {
            ctx.issues.push({
              code: 'custom',
              message: `Every line item must be in ${currency}, the currency of the first.`,
              input: item.unit_amount.currency,
              path: [index, 'unit_amount', 'currency'],
            });
          }
        });
        if (ctx.issues.length > 0 || !currency) return;
        const problem = totalProblem(lineItemsTotal(atMostPicked(ctx.value)));
        if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
      },
      z.meta({
        description: 'Instead of `amount`: the amount is their sum.',
      }),
    ),
  );

const paymentMethodsSchema = () =>
  z.optional(
    z.array(z.enum(PAYMENT_METHODS)).check(
      z.minLength(1),
      z.maxLength(PAYMENT_METHODS.length),
      z.refine((methods) => new Set(methods).size === methods.length, 'Each method at most once.'),
      z.meta({
        description: 'The methods the buyer may pay with (absent: any).',
      }),
    ),
  );

/** Where a link's amount comes from: exactly one of these is given (functions/domain/amount.ts). */
const AMOUNT_SOURCES = ['amount', 'line_items', 'amount_range'] as const;

function createPaymentLinkSchema(policy: UrlPolicy) {
  return z
    .strictObject({
      amount: z.optional(
        amountSchema().check(
          z.meta({ description: 'Required unless `line_items` or `amount_range` is given.' }),
        ),
      ),
      line_items: lineItemsSchema(),
      amount_range: amountRangeSchema(),
      payment_methods: paymentMethodsSchema(),
      collect: collectSchema(),
      custom_fields: customFieldsSchema(),
      ...linkFieldSchemas(policy),
      connections: linkConnectionsSchema(),
      reusable: z.optional(
        z.boolean().check(
          z.meta({
            description:
              'Takes a payment from every buyer, each on their own PSP session, until it is canceled, expires or has `max_payments` (then `completed`). Default: false, single-use.',
          }),
        ),
      ),
      max_payments: z.optional(
        z.int().check(
          z.minimum(1),
          z.maximum(MAX_PAYMENTS_PER_LINK),
          z.meta({
            description: `A reusable link's most payments, 1 to ${MAX_PAYMENTS_PER_LINK}; absent: ${MAX_PAYMENTS_PER_LINK}. Only with \`reusable: true\`.`,
            format: 'int32',
          }),
        ),
      ),
    })
    .check((ctx) => {
      if (ctx.value.max_payments !== undefined && ctx.value.reusable !== true) {
        ctx.issues.push({
          code: 'custom',
          message: 'Only a reusable link (`reusable: true`) takes `max_payments`.',
          input: ctx.value.max_payments,
          path: ['max_payments'],
        });
      }
    })
    .check((ctx) => {
      const given = AMOUNT_SOURCES.filter((field) => ctx.value[field] !== undefined);
      if (given.length === 1) return;
      ctx.issues.push({
        code: 'custom',
        message:
          given.length === 0
            ? 'Give one of `amount`, `line_items` or `amount_range`.'
            : `Give one of \`amount\`, \`line_items\` or \`amount_range\`, not ${given.map((field) => `\`${field}\``).join(' and ')}.`,
        input: ctx.value,
        // The second field given is the one too many.
        path: given.length === 0 ? ['amount'] : [given[1] as string],
      });
    });
}

/** Refused on update with a field error that says why, rather than "Unknown field". */
const immutableField = (message: string) =>
  z.optional(
    z.unknown().check((ctx) => {
      ctx.issues.push({ code: 'custom', message, input: ctx.value });
    }),
  );

/**
 * `PATCH /v1/payment-links/{id}` (JSON merge patch): each field as on creation; `null` clears it, an absent one
 * stays. `amount` is refused: what the buyer pays never changes once the link is out.
 */
function updatePaymentLinkSchema(policy: UrlPolicy) {
  return z.strictObject({
    amount: immutableField('The amount of a payment link cannot change; cancel it and create a new one.'),
    line_items: immutableField(
      'The line items of a payment link cannot change; cancel it and create a new one.',
    ),
    amount_range: immutableField(
      'The amount range of a payment link cannot change; cancel it and create a new one.',
    ),
    payment_methods: immutableField('The payment methods of a payment link cannot change.'),
    collect: immutableField('The buyer details a payment link asks for cannot change.'),
    custom_fields: immutableField('The custom fields of a payment link cannot change.'),
    reusable: immutableField('Whether a payment link is reusable cannot change.'),
    max_payments: immutableField('The most payments of a reusable link cannot change.'),
    ...linkFieldSchemas(policy),
  });
}

export type CreatePaymentLinkRequest = z.infer<ReturnType<typeof createPaymentLinkSchema>>;

/**
 * `http` URLs are for test mode only; private targets for test mode only, and only where the deployment allows
 * them (`allowPrivateTargets`: the local stack). A live link's URLs are public in every deployment.
 */
export const createPaymentLinkRequest = (mode: Mode, allowPrivateTargets: boolean) =>
  cachedPerPolicy(createSchemas, createPaymentLinkSchema, mode, allowPrivateTargets);
const createSchemas = /* @__PURE__ */ new Map<string, ReturnType<typeof createPaymentLinkSchema>>();

export type UpdatePaymentLinkRequest = z.infer<ReturnType<typeof updatePaymentLinkSchema>>;

/** The same URL rules as `createPaymentLinkRequest`. */
export const updatePaymentLinkRequest = (mode: Mode, allowPrivateTargets: boolean) =>
  cachedPerPolicy(updateSchemas, updatePaymentLinkSchema, mode, allowPrivateTargets);
const updateSchemas = /* @__PURE__ */ new Map<string, ReturnType<typeof updatePaymentLinkSchema>>();

function cachedPerPolicy<T>(
  cache: Map<string, T>,
  build: (policy: UrlPolicy) => T,
  mode: Mode,
  allowPrivateTargets: boolean,
): T {
  const key = `${mode}:${allowPrivateTargets}`;
  let schema = cache.get(key);
  if (!schema) {
    schema = build({
      allowHttp: mode === 'test',
      allowPrivateTargets: mode === 'test' && allowPrivateTargets,
    });
    cache.set(key, schema);
  }
  return schema;
}
