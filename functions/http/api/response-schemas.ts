import { z } from 'zod';
import { PSP_IDS } from '../../adapters/psp/registry.ts';
import { MAX_BASE_URL_LENGTH } from '../../config.ts';
import { MAX_LINE_ITEM_NAME_LENGTH, MAX_LINE_ITEMS, MAX_QUANTITY } from '../../domain/amount.ts';
import { MAX_DISPLAY_NAME_LENGTH, MAX_EMAIL_LENGTH } from '../../domain/checkout-settings.ts';
import { HEALTH_STATUSES } from '../../domain/connection-health.ts';
import { type IdPrefix, idPattern, maxIdLength } from '../../domain/ids.ts';
import { EVENT_TYPES } from '../../domain/link-events.ts';
import { MAX_PAYMENTS_PER_LINK } from '../../domain/link-payments.ts';
import { MAX_LOCALE_LENGTH } from '../../domain/locale.ts';
import { MAX_AMOUNT_VALUE_LENGTH } from '../../domain/money.ts';
import { FAILURE_CLASSES, FAILURE_CODES, PAYMENT_STATES } from '../../domain/payment.ts';
import { LINK_STATUSES, REFUND_REASONS, REFUND_STATUSES } from '../../domain/payment-link.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import { MODES } from '../../domain/principal.ts';
import { MAX_FAILURE_MESSAGE_LENGTH, MAX_REFUNDS_PER_LINK } from '../../domain/refund.ts';
import { MAX_URL_LENGTH } from '../../domain/urls.ts';
import { ATTEMPTS_KEPT, EVENT_STATUSES } from '../../domain/webhook.ts';
import { type ErrorCode, PROBLEM_TYPES, problemTypeUri } from '../problem-types.ts';
import {
  AdjustableQuantitySchema,
  CollectSchema,
  CustomFieldsSchema,
  paymentAnswerFields,
} from './buyer-response-schemas.ts';
import { int32 } from './int32-schema.ts';
import { MAX_CURSOR_LENGTH, MAX_LIST_LIMIT } from './list-query.ts';
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_KEYS, MAX_METADATA_VALUE_LENGTH } from './metadata-limits.ts';
import { linkMoneyFields, money, paymentMoneyFields } from './money-response-schemas.ts';
import { DeclineSchema, RecurringSchema } from './recurring-response-schemas.ts';
import { MAX_BODY_BYTES } from './request-body.ts';
import {
  FeeLineSchema,
  PerformanceSummarySchema,
  RoutingDecisionSchema,
} from './routing-response-schemas.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_TIMESTAMP_LENGTH } from './schemas.ts';

/**
 * Response schemas: they document what the API returns (docs/openapi.json) and the API tests validate real
 * responses against the generated document, so these cannot drift from the handlers either. The handlers take
 * only their types (`import type`, resources.ts), so they use classic zod and add nothing to a Lambda bundle
 * (biome/response-schemas-as-types.grit refuses any other import); lib/openapi/ builds the document from them.
 * A schema with a `meta` id is a component of the document (`#/components/schemas`).
 */
export const timestamp = (description: string) =>
  z.iso.datetime().max(MAX_TIMESTAMP_LENGTH).meta({ description });
export const nullableTimestamp = (description: string) =>
  z.iso.datetime().max(MAX_TIMESTAMP_LENGTH).nullable().meta({ description });

export const publicId = (prefix: IdPrefix) => z.string().regex(idPattern(prefix)).max(maxIdLength(prefix));
export const PaymentLinkId = publicId('pl');
export const EventId = publicId('evt');
export const url = () => z.string().max(MAX_URL_LENGTH);
/**
 * A PSP's id: one of the registered PSPs (functions/adapters/psp/registry.ts), which the document enumerates; a
 * string to the code, which knows no PSP by name.
 */
export const providerSchema = () => z.enum(PSP_IDS as readonly string[] as [string, ...string[]]);

/** PSPs' ids of payments and refunds are short (13 to 36 characters at the PSPs we know); this bounds any of them. */
const MAX_PROVIDER_REFERENCE_LENGTH = 255;

export const PaymentLinkSchema = z
  .strictObject({
    id: PaymentLinkId.meta({ example: 'pl_4f8Qm2Zk9WcT1bXy7LrN3s' }),
    object: z.literal('payment_link'),
    mode: z.enum(MODES).meta({ description: 'The mode of the API key that created the link.' }),
    status: z.enum(LINK_STATUSES).meta({
      description:
        'An open link whose `expires_at` has passed reads `expired` at once. `paid` ends a single-use link; `completed` a reusable one that took `max_payments`.',
    }),
    amount: money('Exactly as sent.', '10.50').nullable().meta({
      description:
        'The fixed amount, exactly as sent, or the sum of `line_items`; null when the buyer chooses it (`amount_range`; what they paid is `payment.amount`).',
    }),
    amount_range: z
      .strictObject({
        currency: z
          .string()
          .regex(/^[A-Z]{3}$/)
          .max(3),
        minimum: z.string().max(MAX_AMOUNT_VALUE_LENGTH),
        maximum: z.string().max(MAX_AMOUNT_VALUE_LENGTH),
        suggested: z.string().max(MAX_AMOUNT_VALUE_LENGTH).nullable(),
      })
      .nullable()
      .meta({
        description:
          'The bounds within which the buyer chooses the amount on the checkout page, as sent; null for a fixed amount.',
      }),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    redirect_url: url().nullable(),
    webhook_url: url().nullable(),
    metadata: z
      .record(z.string().min(1).max(MAX_METADATA_KEY_LENGTH), z.string().max(MAX_METADATA_VALUE_LENGTH))
      .meta({ maxProperties: MAX_METADATA_KEYS })
      .nullable(),
    line_items: z
      .array(
        z.strictObject({
          name: z.string().max(MAX_LINE_ITEM_NAME_LENGTH),
          quantity: int32(1, MAX_QUANTITY),
          unit_amount: money('Tax included, as sent.', '5.25'),
          tax_rate: z.string().max(6).nullable(),
          adjustable_quantity: AdjustableQuantitySchema,
        }),
      )
      .max(MAX_LINE_ITEMS)
      .nullable()
      .meta({ description: 'The lines whose sum is `amount`; null for a fixed amount. Not in webhooks.' }),
    payment_methods: z
      .array(z.enum(PAYMENT_METHODS))
      .max(PAYMENT_METHODS.length)
      .nullable()
      .meta({ description: 'The methods the buyer may pay with; null: any. Not in webhooks.' }),
    collect: CollectSchema,
    custom_fields: CustomFieldsSchema,
    recurring: RecurringSchema.nullable().meta({
      description:
        'A subscription link: its payment starts a subscription on these terms (docs/subscriptions.md); null on any other link. Not in webhooks.',
    }),
    locale: z
      .string()
      .max(MAX_LOCALE_LENGTH)
      .nullable()
      .meta({ description: "The language of the buyer's pages; null: the buyer's `Accept-Language`." }),
    reusable: z.boolean().meta({
      description:
        'Takes a payment from every buyer until canceled, expired or `completed`; false: single-use.',
    }),
    max_payments: int32(1, MAX_PAYMENTS_PER_LINK)
      .nullable()
      .meta({
        description: `A reusable link's most payments (null: ${MAX_PAYMENTS_PER_LINK}); null for a single-use link.`,
      }),
    succeeded_payments: int32(0).meta({
      description:
        'How many payments succeeded (GET .../payments lists them). With `max_payments`, each session takes a place before any PSP is asked, so buyers at the same moment never pass it; a payment that arrives beyond it anyway (a session the PSP would not end) is reported by `payment_link.duplicate_payment`.',
    }),
    checkout_url: z
      .string()
      .max(MAX_BASE_URL_LENGTH + 1 + PaymentLinkId.maxLength!)
      .meta({ description: 'Send the buyer here: `{checkout_base}/{id}`.' }),
    qr_code_url: z
      .string()
      .max(MAX_BASE_URL_LENGTH + 1 + PaymentLinkId.maxLength! + '/qr.svg'.length)
      .meta({
        description:
          'An SVG QR code of `checkout_url`, `{checkout_base}/{id}/qr.svg`: public, for printing or showing on a screen.',
      }),
    created_at: timestamp('RFC 3339, UTC.'),
    expires_at: nullableTimestamp('After this instant the link can no longer be paid.'),
    paid_at: nullableTimestamp('When the PSP confirmed the payment.'),
    canceled_at: nullableTimestamp('When the merchant canceled the link.'),
    payment: z
      .strictObject({
        id: publicId('pay').meta({ description: 'The succeeded payment (GET .../payments lists it).' }),
        connection_id: publicId('pc').meta({ description: 'The PSP connection that took it.' }),
        provider: providerSchema(),
        reference: z.string().max(255).nullable().meta({
          description:
            "The PSP's own id of the payment. Null for a short while when the PSP confirmed the payment before giving its id; it is filled in when the PSP's notification arrives, without a new event.",
        }),
        amount: money('In the currency decimals.', '25.00').meta({
          description:
            'What the payment charged: `amount`, or the amount the buyer chose within `amount_range`.',
        }),
        // In `payment_link.paid` events only: the link's own `payment` keeps none of it.
        ...paymentAnswerFields(),
      })
      .nullable()
      .meta({
        description:
          "The succeeded payment, once paid; a reusable link's latest (each `payment_link.paid` event carries its own).",
      }),
    amount_refunded: money('In the currency decimals.', '0.00').meta({
      description: 'What succeeded refunds gave back, in the currency of the link: "0.00" until then.',
    }),
    ...linkMoneyFields(),
  })
  .meta({ id: 'PaymentLink', title: 'Payment link' });

/** A page of a cursor-paginated list, newest first (the list endpoints share its shape). */
export const pageOf = (item: z.ZodType, meta: { id: string; title: string }) =>
  z
    .strictObject({
      data: z.array(item).max(MAX_LIST_LIMIT).meta({ description: 'Newest first.' }),
      next_cursor: z
        .string()
        .max(MAX_CURSOR_LENGTH)
        .nullable()
        .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    })
    .meta(meta);

export const PaymentLinkListSchema = pageOf(PaymentLinkSchema, {
  id: 'PaymentLinkList',
  title: 'A page of payment links',
});

/** One attempt of a delivery log. */
export const deliveryAttempt = () =>
  z.strictObject({
    at: timestamp('When the attempt started.'),
    status_code: int32(100, 599)
      .nullable()
      .meta({ description: "The endpoint's HTTP status; null when none arrived." }),
    duration_ms: int32(0),
    error: z.string().nullable(),
  });

/** A destination's delivery log: its latest attempts, and how many were made in all. */
export const attemptLog = () => ({
  attempts: z
    .array(deliveryAttempt())
    .max(ATTEMPTS_KEPT)
    .meta({ description: `The latest ${ATTEMPTS_KEPT} attempts, oldest first.` }),
  attempt_count: int32(0).meta({
    description: 'Every attempt made, including those no longer listed.',
  }),
});

export const EventLogSchema = z
  .strictObject({
    data: z.array(
      z.strictObject({
        id: EventId.meta({ description: 'Also the `webhook-id` header.' }),
        type: z.enum(EVENT_TYPES),
        created_at: timestamp('When the transition happened.'),
        status: z.enum(EVENT_STATUSES).meta({
          description:
            '`pending` while deliveries may still happen; `delivered` and `failed` are final until a redelivery.',
        }),
        ...attemptLog(),
      }),
    ),
  })
  .meta({ id: 'EventLog', title: 'Webhook events of a payment link' });

export const RefundSchema = z
  .strictObject({
    id: publicId('re').meta({ example: 're_8cQm2Zk9WcT1bXy7LrN3sF4a' }),
    object: z.literal('refund'),
    payment_link_id: PaymentLinkId,
    payment_id: publicId('pay').meta({ description: 'The payment refunded.' }),
    status: z.enum(REFUND_STATUSES).meta({
      description:
        '`pending` until the PSP settles it, then `succeeded` or `failed`, each with its webhook. `failed` is final; a `succeeded` refund becomes `failed` (with `refund.failed`) if the PSP later reverses it.',
    }),
    amount: money('As sent, or all that remained (in the currency decimals).', '4.00'),
    failure: z
      .strictObject({
        code: z.enum(['refund_failed']),
        message: z.string().max(MAX_FAILURE_MESSAGE_LENGTH),
      })
      .nullable()
      .meta({ description: 'Why the PSP refused the refund; null unless `failed`.' }),
    provider_reference: z
      .string()
      .max(MAX_PROVIDER_REFERENCE_LENGTH)
      .nullable()
      .meta({ description: "The PSP's own id of the refund." }),
    reason: z
      .enum(REFUND_REASONS)
      .optional()
      .meta({ description: 'Why it was made, when the request said (`reason`); absent otherwise.' }),
    reason_detail: z
      .string()
      .max(500)
      .optional()
      .meta({ description: 'The reason in the words of whoever made it, when given.' }),
    created_at: timestamp('RFC 3339, UTC.'),
    updated_at: timestamp('When the status last changed.'),
  })
  .meta({ id: 'Refund', title: 'Refund' });

export const RefundListSchema = z
  .strictObject({
    data: z.array(RefundSchema).max(MAX_REFUNDS_PER_LINK).meta({ description: 'Newest first.' }),
  })
  .meta({ id: 'RefundList', title: 'Refunds of a payment link' });

export const RedeliverySchema = z
  .strictObject({ id: EventId, status: z.literal('pending') })
  .meta({ id: 'Redelivery', title: 'A queued redelivery' });

export type { ErrorCode };

/** What each code means to a client; a new error class fails the type check until it is described here. */
const MEANINGS: Record<ErrorCode, string> = {
  invalid_json: 'The body is not valid JSON.',
  invalid_notification: 'A PSP notification that could not be verified; nothing changed.',
  unauthorized: 'Missing, malformed, unknown or revoked API key.',
  not_found: "No such resource, or another tenant's (indistinguishable).",
  method_not_allowed: 'The path exists; `Allow` lists its methods.',
  invalid_state: 'The link is in a state that forbids this (e.g. canceling a paid link).',
  idempotency_in_progress:
    'A request with this `Idempotency-Key` is still running; retry after `Retry-After`.',
  payload_too_large: `The body is over ${MAX_BODY_BYTES / 1024} KiB.`,
  unsupported_media_type: 'The body is not `Content-Type: application/json`.',
  validation_failed: 'One `errors` entry per invalid field, parameter or header.',
  idempotency_key_reused: 'This `Idempotency-Key` was used with a different request in the last 24 hours.',
  rate_limited: 'Too many requests for this account and mode; see `Retry-After`.',
  internal_error: 'Our fault; retry later (idempotent requests are safe to retry).',
  psp_unavailable: 'The payment provider failed or did not answer; retry in a moment.',
  service_unavailable: 'Temporarily unavailable; retry later.',
  temporarily_unavailable:
    'A service we depend on throttled us or did not answer; retry after `Retry-After` (idempotent requests are safe to retry).',
};

/** Each code with its HTTP status (the one table, problem-types.ts) and meaning, by status, then code. */
export const ERROR_CODES = Object.fromEntries(
  (Object.keys(PROBLEM_TYPES) as ErrorCode[])
    .sort((a, b) => PROBLEM_TYPES[a].status - PROBLEM_TYPES[b].status || a.localeCompare(b))
    .map((code) => [code, { status: PROBLEM_TYPES[code].status, meaning: MEANINGS[code] }]),
) as Record<ErrorCode, { status: number; meaning: string }>;

export const ProblemSchema = z
  .strictObject({
    type: z
      .enum((Object.keys(ERROR_CODES) as ErrorCode[]).map(problemTypeUri) as [string, ...string[]])
      .meta({ description: '`/problems/<code>`, documented in docs/api.md.' }),
    title: z.string(),
    status: int32(400, 599),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    errors: z
      .array(
        z.strictObject({
          pointer: z.string().meta({ description: 'JSON Pointer (RFC 6901), e.g. `/amount/value`.' }),
          detail: z.string(),
        }),
      )
      .optional(),
    request_id: z.string(),
  })
  .meta({ id: 'Problem', title: 'Problem details (RFC 9457)' });

export const PaymentSchema = z
  .strictObject({
    id: publicId('pay').meta({ example: 'pay_7Hc2Lw9QxV4mTz1bNs8KdR3a' }),
    object: z.literal('payment'),
    connection_id: publicId('pc').meta({ description: 'The PSP connection of the attempt.' }),
    provider: providerSchema(),
    status: z.enum(PAYMENT_STATES),
    amount: money(
      'What the attempt charges: the amount its PSP session was created at (a fixed link: its `amount`).',
      '10.50',
    ),
    ...paymentMoneyFields(),
    provider_reference: z
      .string()
      .max(255)
      .nullable()
      .meta({ description: "The PSP's own id of the payment, once it has one." }),
    failure: z
      .strictObject({
        code: z.enum(FAILURE_CODES),
        class: z.enum(FAILURE_CLASSES).meta({
          description:
            '`soft`: may pass at another connection or later; `hard`: will not (the card or the buyer is the problem, or money moved), never re-routed; `outage`: the PSP failed, not the buyer. The same for a code whichever PSP reported it (docs/orchestration.md#decline-codes).',
        }),
        message: z.string().max(500),
      })
      .nullable()
      .meta({
        description:
          'The same codes for every PSP (docs/orchestration.md#decline-codes). `psp_unavailable`: the connection could not open a session and the next one was tried (a failover); `insufficient_funds`, `do_not_honor`, `expired_card`, `incorrect_details`, `suspected_fraud`, `lost_or_stolen_card`, `authentication_required`, `limit_exceeded`, `method_not_available`: the reason the PSP gave for its decline; `do_not_retry`: the issuer said never to try this card again, so no recovery tries it at another PSP; `processing_error`: a reason its table does not know; `declined`: a decline without a reason; `expired`, `canceled`, `psp_error`: what the PSP said about the attempt; `amount_mismatch`: the PSP reported a success at another amount or currency than the payment was for, so the link was not paid by it, and what was taken was refunded or the authorization voided (docs/security.md#amounts-the-psp-reports).',
      }),
    routing: RoutingDecisionSchema.nullable().optional().meta({
      description:
        "Why the attempt went to its connection, a failover's failed attempts included; null for payments no checkout decided (renewals) and for older ones.",
    }),
    ...paymentAnswerFields(),
    subscription_id: publicId('sub').optional().meta({
      description:
        'A renewal of a subscription (docs/subscriptions.md): the subscription it charged; absent on any other payment.',
    }),
    decline: DeclineSchema.optional().meta({
      description: 'A declined renewal: the class of the decline and its code; absent on any other payment.',
    }),
    created_at: timestamp('When the attempt started.'),
    updated_at: timestamp('When its status last changed.'),
  })
  .meta({ id: 'Payment', title: 'Payment (one attempt to pay a link)' });

export const PaymentListSchema = z
  .strictObject({ data: z.array(PaymentSchema).meta({ description: 'Newest first.' }) })
  .meta({ id: 'PaymentList', title: 'The payments of a link' });

export const PspConnectionListSchema = z
  .strictObject({
    data: z.array(
      z
        .strictObject({
          id: publicId('pc'),
          object: z.literal('psp_connection'),
          provider: providerSchema(),
          name: z.string().max(100),
          enabled: z.boolean(),
          health: z.enum(HEALTH_STATUSES).meta({
            description:
              '`down`: failed 5 times in a row, skipped for 60 s, then tried once; `degraded`: recent failures below that.',
          }),
          methods: z.array(z.enum(PAYMENT_METHODS)).max(PAYMENT_METHODS.length).meta({
            description:
              'The payment methods it serves (`--methods` on `npm run psp -- add`; every method by default). Links whose `payment_methods` name none of them are not routed to it.',
          }),
          fees: z
            .array(FeeLineSchema)
            .max(20)
            .meta({ description: 'Its fee lines (`npm run psp -- fees`).' }),
          performance: PerformanceSummarySchema,
        })
        .meta({ id: 'PspConnection', title: 'PSP connection' }),
    ),
  })
  .meta({ id: 'PspConnectionList', title: 'PSP connections of the mode' });

export const CheckoutSettingsSchema = z
  .strictObject({
    object: z.literal('checkout_settings'),
    mode: z.enum(MODES),
    display_name: z.string().max(MAX_DISPLAY_NAME_LENGTH).nullable(),
    logo_url: url().nullable(),
    accent_color: z
      .string()
      .max(7)
      .nullable()
      .meta({ description: 'Lower case `#rrggbb`; null: our own accent.' }),
    support_email: z.string().max(MAX_EMAIL_LENGTH).nullable(),
    updated_at: nullableTimestamp('When they were last replaced; null when never set.'),
  })
  .meta({ id: 'CheckoutSettings', title: 'Checkout settings (branding of the checkout pages)' });
