import { z } from 'zod';
import { idPattern } from '../functions/domain/ids.ts';
import { EVENT_TYPES, LINK_STATUSES, REFUND_STATUSES } from '../functions/domain/payment-link.ts';
import { MODES } from '../functions/domain/principal.ts';
import { EVENT_STATUSES } from '../functions/domain/webhook.ts';
import { MAX_BODY_BYTES } from '../functions/http/request-body.ts';

/**
 * Response schemas: they document what the API returns (docs/openapi.json) and the API tests validate real
 * responses against the generated document, so these cannot drift from the handlers either. Build time only,
 * so they use classic zod; a schema with a `meta` id is a component of the document (`#/components/schemas`).
 */
const timestamp = (description: string) => z.iso.datetime().meta({ description });
const nullableTimestamp = (description: string) => z.iso.datetime().nullable().meta({ description });

export const PaymentLinkId = z.string().regex(idPattern('pl'));
export const EventId = z.string().regex(idPattern('evt'));

export const PaymentLinkSchema = z
  .strictObject({
    id: PaymentLinkId.meta({ example: 'pl_4f8Qm2Zk9WcT1bXy7LrN3s' }),
    object: z.literal('payment_link'),
    mode: z.enum(MODES).meta({ description: 'The mode of the API key that created the link.' }),
    status: z.enum(LINK_STATUSES).meta({
      description: 'An open link whose `expires_at` has passed reads `expired` at once.',
    }),
    amount: z.strictObject({
      value: z.string().meta({ description: 'Exactly as sent.', example: '10.50' }),
      currency: z.string().meta({ example: 'EUR' }),
    }),
    description: z.string().nullable(),
    redirect_url: z.string().nullable(),
    webhook_url: z.string().nullable(),
    metadata: z.record(z.string(), z.string()).nullable(),
    checkout_url: z.string().meta({ description: 'Send the buyer here: `{checkout_base}/{id}`.' }),
    created_at: timestamp('RFC 3339, UTC.'),
    expires_at: nullableTimestamp('After this instant the link can no longer be paid.'),
    paid_at: nullableTimestamp('When the PSP confirmed the payment.'),
    canceled_at: nullableTimestamp('When the merchant canceled the link.'),
    payment: z
      .strictObject({ provider: z.string(), reference: z.string() })
      .nullable()
      .meta({ description: "The PSP payment, once paid: the provider and its payment's reference." }),
    amount_refunded: z
      .strictObject({
        value: z.string().meta({ example: '0.00' }),
        currency: z.string().meta({ example: 'EUR' }),
      })
      .meta({
        description: 'What succeeded refunds gave back, in the currency of the link: "0.00" until then.',
      }),
  })
  .meta({ id: 'PaymentLink', title: 'Payment link' });

export const PaymentLinkListSchema = z
  .strictObject({
    data: z.array(PaymentLinkSchema).meta({ description: 'Newest first.' }),
    next_cursor: z
      .string()
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
              status_code: z
                .int()
                .nullable()
                .meta({ description: "The endpoint's HTTP status; null when none arrived." }),
              duration_ms: z.int(),
              error: z.string().nullable(),
            }),
          )
          .meta({ description: 'The latest 50 attempts, oldest first.' }),
        attempt_count: z.int().meta({ description: 'Every attempt made, including those no longer listed.' }),
      }),
    ),
  })
  .meta({ id: 'EventLog', title: 'Webhook events of a payment link' });

export const RefundSchema = z
  .strictObject({
    id: z.string().regex(idPattern('re')).meta({ example: 're_8cQm2Zk9WcT1bXy7LrN3sF4a' }),
    object: z.literal('refund'),
    payment_link_id: PaymentLinkId,
    payment_id: z.string().regex(idPattern('pay')).meta({ description: 'The payment refunded.' }),
    status: z.enum(REFUND_STATUSES).meta({
      description:
        '`pending` until the PSP settles it; `succeeded` and `failed` are final (each with its webhook).',
    }),
    amount: z.strictObject({
      value: z.string().meta({ description: 'As sent, or all that remained.', example: '4.00' }),
      currency: z.string().meta({ example: 'EUR' }),
    }),
    failure: z
      .strictObject({ code: z.string(), message: z.string() })
      .nullable()
      .meta({ description: 'Why the PSP refused the refund; null unless `failed`.' }),
    provider_reference: z.string().nullable().meta({ description: "The PSP's own id of the refund." }),
    created_at: timestamp('RFC 3339, UTC.'),
    updated_at: timestamp('When the status last changed.'),
  })
  .meta({ id: 'Refund', title: 'Refund' });

export const RefundListSchema = z
  .strictObject({ data: z.array(RefundSchema).meta({ description: 'Newest first.' }) })
  .meta({ id: 'RefundList', title: 'Refunds of a payment link' });

export const RedeliverySchema = z
  .strictObject({ id: z.string(), status: z.literal('pending') })
  .meta({ id: 'Redelivery', title: 'A queued redelivery' });

/** Every `code` a problem may carry (PRODUCT.md section 5), with its HTTP status and meaning. */
export const ERROR_CODES = {
  invalid_json: { status: 400, meaning: 'The body is not valid JSON.' },
  unauthorized: { status: 401, meaning: 'Missing, malformed, unknown or revoked API key.' },
  not_found: { status: 404, meaning: "No such resource, or another tenant's (indistinguishable)." },
  method_not_allowed: { status: 405, meaning: 'The path exists; `Allow` lists its methods.' },
  invalid_state: {
    status: 409,
    meaning: 'The link is in a state that forbids this (e.g. canceling a paid link).',
  },
  idempotency_in_progress: {
    status: 409,
    meaning: 'A request with this `Idempotency-Key` is still running; retry after `Retry-After`.',
  },
  payload_too_large: { status: 413, meaning: `The body is over ${MAX_BODY_BYTES / 1024} KiB.` },
  unsupported_media_type: { status: 415, meaning: 'The body is not `Content-Type: application/json`.' },
  validation_failed: { status: 422, meaning: 'One `errors` entry per invalid field, parameter or header.' },
  idempotency_key_reused: {
    status: 422,
    meaning: 'This `Idempotency-Key` was used with a different request in the last 24 hours.',
  },
  rate_limited: { status: 429, meaning: 'Too many requests for this account and mode; see `Retry-After`.' },
  internal_error: { status: 500, meaning: 'Our fault; retry later (idempotent requests are safe to retry).' },
  service_unavailable: { status: 503, meaning: 'Temporarily unavailable; retry later.' },
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export const ProblemSchema = z
  .strictObject({
    type: z.string().meta({ description: '`/problems/<code>`, documented in docs/api.md.' }),
    title: z.string(),
    status: z.number().int(),
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
