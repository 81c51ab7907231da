import { z } from 'zod';
import { MAX_BASE_URL_LENGTH } from '../functions/config.ts';
import { PROVIDERS } from '../functions/domain/connection.ts';
import { HEALTH_STATUSES } from '../functions/domain/connection-health.ts';
import type { ErrorClass as ErrorClassShape } from '../functions/domain/errors.ts';
import * as errors from '../functions/domain/errors.ts';
import { type IdPrefix, idPattern, maxIdLength } from '../functions/domain/ids.ts';
import { MAX_AMOUNT_VALUE_LENGTH } from '../functions/domain/money.ts';
import { FAILURE_CODES, PAYMENT_STATES } from '../functions/domain/payment.ts';
import { EVENT_TYPES, LINK_STATUSES, REFUND_STATUSES } from '../functions/domain/payment-link.ts';
import { MODES } from '../functions/domain/principal.ts';
import { MAX_FAILURE_MESSAGE_LENGTH, MAX_REFUNDS_PER_LINK } from '../functions/domain/refund.ts';
import { MAX_URL_LENGTH } from '../functions/domain/urls.ts';
import { ATTEMPTS_KEPT, EVENT_STATUSES } from '../functions/domain/webhook.ts';
import { MAX_CURSOR_LENGTH, MAX_LIST_LIMIT } from '../functions/http/list-query.ts';
import { MAX_BODY_BYTES } from '../functions/http/request-body.ts';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  MAX_TIMESTAMP_LENGTH,
} from '../functions/http/schemas.ts';

/**
 * Response schemas: they document what the API returns (docs/openapi.json) and the API tests validate real
 * responses against the generated document, so these cannot drift from the handlers either. Build time only,
 * so they use classic zod; a schema with a `meta` id is a component of the document (`#/components/schemas`).
 */
const timestamp = (description: string) => z.iso.datetime().max(MAX_TIMESTAMP_LENGTH).meta({ description });
const nullableTimestamp = (description: string) =>
  z.iso.datetime().max(MAX_TIMESTAMP_LENGTH).nullable().meta({ description });
/** An integer of a 32-bit field: clients map it to their int32 type. */
const int32 = (minimum: number, maximum = 2 ** 31 - 1) =>
  z.int().min(minimum).max(maximum).meta({ format: 'int32' });

const publicId = (prefix: IdPrefix) => z.string().regex(idPattern(prefix)).max(maxIdLength(prefix));
export const PaymentLinkId = publicId('pl');
export const EventId = publicId('evt');
const url = () => z.string().max(MAX_URL_LENGTH);
/** An amount: a decimal string and an ISO 4217 code. */
const money = (valueDescription: string, example: string) =>
  z.strictObject({
    value: z.string().max(MAX_AMOUNT_VALUE_LENGTH).meta({ description: valueDescription, example }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .max(3)
      .meta({ example: 'EUR' }),
  });
/** PSP ids are short (Stripe `re_…` 27, Mollie `re_…` 13, Adyen PSP references 16); this bounds any of them. */
const MAX_PROVIDER_REFERENCE_LENGTH = 255;

export const PaymentLinkSchema = z
  .strictObject({
    id: PaymentLinkId.meta({ example: 'pl_4f8Qm2Zk9WcT1bXy7LrN3s' }),
    object: z.literal('payment_link'),
    mode: z.enum(MODES).meta({ description: 'The mode of the API key that created the link.' }),
    status: z.enum(LINK_STATUSES).meta({
      description: 'An open link whose `expires_at` has passed reads `expired` at once.',
    }),
    amount: money('Exactly as sent.', '10.50'),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    redirect_url: url().nullable(),
    webhook_url: url().nullable(),
    metadata: z
      .record(z.string().min(1).max(MAX_METADATA_KEY_LENGTH), z.string().max(MAX_METADATA_VALUE_LENGTH))
      .meta({ maxProperties: MAX_METADATA_KEYS })
      .nullable(),
    checkout_url: z
      .string()
      .max(MAX_BASE_URL_LENGTH + 1 + PaymentLinkId.maxLength!)
      .meta({ description: 'Send the buyer here: `{checkout_base}/{id}`.' }),
    created_at: timestamp('RFC 3339, UTC.'),
    expires_at: nullableTimestamp('After this instant the link can no longer be paid.'),
    paid_at: nullableTimestamp('When the PSP confirmed the payment.'),
    canceled_at: nullableTimestamp('When the merchant canceled the link.'),
    payment: z
      .strictObject({
        id: publicId('pay').meta({ description: 'The succeeded payment (GET .../payments lists it).' }),
        connection_id: publicId('pc').meta({ description: 'The PSP connection that took it.' }),
        provider: z.enum(PROVIDERS),
        reference: z.string().max(255).nullable().meta({
          description:
            "The PSP's own id of the payment. Null for a short while when the PSP confirmed the payment before giving its id (Adyen); it is filled in when the PSP's notification arrives, without a new event.",
        }),
      })
      .nullable()
      .meta({ description: 'The succeeded payment, once paid.' }),
    amount_refunded: money('In the currency decimals.', '0.00').meta({
      description: 'What succeeded refunds gave back, in the currency of the link: "0.00" until then.',
    }),
  })
  .meta({ id: 'PaymentLink', title: 'Payment link' });

export const PaymentLinkListSchema = z
  .strictObject({
    data: z.array(PaymentLinkSchema).max(MAX_LIST_LIMIT).meta({ description: 'Newest first.' }),
    next_cursor: z
      .string()
      .max(MAX_CURSOR_LENGTH)
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
  })
  .meta({ id: 'PaymentLinkList', title: 'A page of payment links' });

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
        attempts: z
          .array(
            z.strictObject({
              at: timestamp('When the attempt started.'),
              status_code: int32(100, 599)
                .nullable()
                .meta({ description: "The endpoint's HTTP status; null when none arrived." }),
              duration_ms: int32(0),
              error: z.string().nullable(),
            }),
          )
          .max(ATTEMPTS_KEPT)
          .meta({ description: `The latest ${ATTEMPTS_KEPT} attempts, oldest first.` }),
        attempt_count: int32(0).meta({
          description: 'Every attempt made, including those no longer listed.',
        }),
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
        '`pending` until the PSP settles it; `succeeded` and `failed` are final (each with its webhook).',
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

type ErrorClass = Extract<(typeof errors)[keyof typeof errors], ErrorClassShape>;
/** Every `code` a problem may carry: read off the error classes (functions/domain/errors.ts). */
export type ErrorCode = ErrorClass['code'];

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

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && value.prototype instanceof errors.ServiceError && 'code' in value;

/** Each code with its HTTP status and meaning, by status, then code. */
export const ERROR_CODES = Object.fromEntries(
  Object.values(errors)
    .filter(isErrorClass)
    .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code))
    .map((type) => [type.code, { status: type.status, meaning: MEANINGS[type.code] }]),
) as Record<ErrorCode, { status: number; meaning: string }>;

export const ProblemSchema = z
  .strictObject({
    type: z
      .enum(Object.keys(ERROR_CODES).map((code) => `/problems/${code}`) as [string, ...string[]])
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
    provider: z.enum(PROVIDERS),
    status: z.enum(PAYMENT_STATES),
    provider_reference: z
      .string()
      .max(255)
      .nullable()
      .meta({ description: "The PSP's own id of the payment, once it has one." }),
    failure: z
      .strictObject({ code: z.enum(FAILURE_CODES), message: z.string().max(500) })
      .nullable()
      .meta({
        description:
          '`psp_unavailable`: the connection could not open a session and the next one was tried (a failover); `declined`, `expired`, `canceled`, `psp_error`: what the PSP said about the attempt.',
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
          provider: z.enum(PROVIDERS),
          name: z.string().max(100),
          enabled: z.boolean(),
          health: z.enum(HEALTH_STATUSES).meta({
            description:
              '`down`: failed 5 times in a row, skipped for 60 s, then tried once; `degraded`: recent failures below that.',
          }),
        })
        .meta({ id: 'PspConnection', title: 'PSP connection' }),
    ),
  })
  .meta({ id: 'PspConnectionList', title: 'PSP connections of the mode' });
