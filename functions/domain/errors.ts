/**
 * The one error family of the service. Every failure a client may see is a `ServiceError` with a stable
 * `code`; the HTTP layer turns it into RFC 9457 problem details in one place (`functions/http/problem.ts`).
 * `expose: false` marks errors whose message is internal: the client then gets only the generic title.
 *
 * Each subclass declares its `code` and `status` as static fields, so the documented list of codes
 * (lib/openapi/response-schemas.ts) is read off the classes themselves and cannot miss one.
 */
export interface FieldError {
  /** JSON Pointer (RFC 6901) to the offending member of the request, e.g. `/amount/value`. */
  pointer: string;
  detail: string;
}

/** What every concrete error class declares about itself. */
export interface ErrorClass {
  readonly code: string;
  readonly status: number;
}

export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly expose: boolean;
  readonly errors: FieldError[] | undefined;
  /** The condition is temporary: the same request may succeed after this many seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(options: {
    title: string;
    detail?: string;
    expose?: boolean;
    errors?: FieldError[];
    retryAfterSeconds?: number;
    cause?: unknown;
  }) {
    super(options.detail ?? options.title, { cause: options.cause });
    const type = new.target as unknown as ErrorClass;
    this.name = new.target.name;
    this.code = type.code;
    this.status = type.status;
    this.title = options.title;
    this.expose = options.expose ?? true;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export class InvalidJsonError extends ServiceError {
  static readonly code = 'invalid_json';
  static readonly status = 400;

  constructor(detail = 'The request body is not valid JSON.') {
    super({ title: 'Malformed JSON', detail });
  }
}

export class UnauthorizedError extends ServiceError {
  static readonly code = 'unauthorized';
  static readonly status = 401;

  constructor(detail = 'A valid API key is required: send it as `Authorization: Bearer <key>`.') {
    super({ title: 'Unauthorized', detail });
  }
}

export class NotFoundError extends ServiceError {
  static readonly code = 'not_found';
  static readonly status = 404;

  constructor(detail = 'No such resource.') {
    super({ title: 'Not found', detail });
  }
}

export class MethodNotAllowedError extends ServiceError {
  static readonly code = 'method_not_allowed';
  static readonly status = 405;

  constructor(allowed: readonly string[]) {
    super({ title: 'Method not allowed', detail: `This resource supports: ${allowed.join(', ')}.` });
  }
}

export class InvalidStateError extends ServiceError {
  static readonly code = 'invalid_state';
  static readonly status = 409;

  constructor(detail: string) {
    super({ title: 'Invalid state', detail });
  }
}

export class PayloadTooLargeError extends ServiceError {
  static readonly code = 'payload_too_large';
  static readonly status = 413;

  constructor(limitBytes: number) {
    super({
      title: 'Payload too large',
      detail: `The request body must be at most ${limitBytes} bytes.`,
    });
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  static readonly code = 'unsupported_media_type';
  static readonly status = 415;

  constructor() {
    super({
      title: 'Unsupported media type',
      detail: 'Send the request body as `Content-Type: application/json`.',
    });
  }
}

export class ValidationError extends ServiceError {
  static readonly code = 'validation_failed';
  static readonly status = 422;

  constructor(errors: FieldError[]) {
    super({
      title: 'Validation failed',
      detail: `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`,
      errors,
    });
  }
}

/** A conditional write lost a race: the caller re-reads and decides again. Never reaches a client as such. */
export class ConcurrentModificationError extends ServiceError {
  static readonly code = 'internal_error';
  static readonly status = 500;

  constructor(detail: string) {
    super({
      title: 'Internal error',
      detail,
      expose: false,
    });
  }
}

/** A PSP notification whose signature does not verify, or that is not in the PSP's format. Changes nothing. */
/**
 * A notification that is forged, foreign, malformed or about nothing we know. Every one gets the same answer, so
 * a sender learns nothing about which links, sessions or credentials exist; `reason` is for our logs only.
 */
export class InvalidNotificationError extends ServiceError {
  static readonly code = 'invalid_notification';
  static readonly status = 400;

  readonly reason: string;
  /** The id the notification named, when the PSP said it knows no such thing (Mollie: no such payment). */
  readonly unknownId: string | undefined;

  constructor(reason = 'Not verified.', options: { unknownId?: string } = {}) {
    super({
      title: 'Invalid notification',
      detail: 'The notification could not be verified.',
    });
    this.reason = reason;
    this.unknownId = options.unknownId;
  }
}

/** The (account, mode) has no PSP able to take payments yet (e.g. live mode before Stripe is configured). */
export class PspNotConfiguredError extends ServiceError {
  static readonly code = 'service_unavailable';
  static readonly status = 503;

  constructor(detail = 'No payment provider is configured for this account and mode.') {
    super({ title: 'Service unavailable', detail });
  }
}

/**
 * A connection that a payment or a refund is still pending through: removing it would leave nobody able to end
 * that session, ask about that payment, or settle that refund (docs/orchestration.md#removing-a-connection).
 */
export class ConnectionInUseError extends InvalidStateError {
  readonly payments: readonly { link_id: string; id: string }[];
  readonly refunds: readonly { link_id: string; id: string }[];

  constructor(
    connectionId: string,
    pending: {
      payments: readonly { link_id: string; id: string }[];
      refunds: readonly { link_id: string; id: string }[];
    },
  ) {
    const count = (n: number, what: string) => `${n} pending ${what}${n === 1 ? '' : 's'}`;
    const listed = (items: readonly { link_id: string; id: string }[]) =>
      items
        .slice(0, 5)
        .map((item) => `${item.id} of ${item.link_id}`)
        .join(', ') + (items.length > 5 ? ', …' : '');
    const parts = [
      pending.payments.length > 0 &&
        `${count(pending.payments.length, 'payment')} (${listed(pending.payments)})`,
      pending.refunds.length > 0 && `${count(pending.refunds.length, 'refund')} (${listed(pending.refunds)})`,
    ].filter(Boolean);
    super(
      `${connectionId} still has ${parts.join(' and ')}: a buyer may still pay, or a refund settle, through it. ` +
        'Disable it so that it opens no new session, and remove it once these have settled.',
    );
    this.payments = pending.payments;
    this.refunds = pending.refunds;
  }
}

/** About one PSP call's bound: a PSP that failed to answer is asked again after this. */
const SESSION_END_RETRY_AFTER_SECONDS = 5;

/**
 * The link's PSP session may still be payable and its PSP could not end it, so the change that would drop it
 * was not made: a link never forgets a session it failed to end (docs/orchestration.md#one-payable-session).
 * Retrying shortly is safe; the PSP's error is logged, never shown.
 */
export class PspSessionNotEndedError extends ServiceError {
  static readonly code = 'service_unavailable';
  static readonly status = 503;

  constructor(cause?: unknown) {
    super({
      title: 'Service unavailable',
      detail:
        'The payment provider could not end the checkout session of this link, so nothing was changed. Retry after `Retry-After` seconds.',
      retryAfterSeconds: SESSION_END_RETRY_AFTER_SECONDS,
      cause,
    });
  }
}

/** The PSP failed or could not be reached (its error is logged, never shown). */
export class PspUnavailableError extends ServiceError {
  static readonly code = 'psp_unavailable';
  static readonly status = 502;

  constructor(cause?: unknown) {
    super({
      title: 'Payment provider unavailable',
      detail: 'The payment provider did not answer as expected. Retry in a moment.',
      retryAfterSeconds: 1,
      cause,
    });
  }
}

/**
 * A service we depend on (the table, the queue) throttled us or did not answer, beyond its client's own retries:
 * the same request may succeed in a moment (its error is logged, never shown).
 */
export class TemporarilyUnavailableError extends ServiceError {
  static readonly code = 'temporarily_unavailable';
  static readonly status = 503;

  constructor(cause?: unknown) {
    super({
      title: 'Temporarily unavailable',
      detail: 'The request could not be completed just now. Retry after Retry-After seconds.',
      retryAfterSeconds: 1,
      cause,
    });
  }
}

/** A retry with an `Idempotency-Key` already used for a different request (docs/api.md#idempotency). */
export class IdempotencyKeyReusedError extends ServiceError {
  static readonly code = 'idempotency_key_reused';
  static readonly status = 422;

  constructor() {
    super({
      title: 'Idempotency key reused',
      detail:
        'This Idempotency-Key was used with a different request in the last 24 hours. Use a new key for a new request.',
    });
  }
}

/** The first request with this `Idempotency-Key` is still running. */
export class IdempotencyInProgressError extends ServiceError {
  static readonly code = 'idempotency_in_progress';
  static readonly status = 409;

  constructor() {
    super({
      title: 'Idempotent request in progress',
      detail: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
      retryAfterSeconds: 1,
    });
  }
}

/** Too many requests for this (account, mode) in the current window. */
export class RateLimitedError extends ServiceError {
  static readonly code = 'rate_limited';
  static readonly status = 429;

  constructor(retryAfterSeconds: number) {
    super({
      title: 'Too many requests',
      detail: `The request rate limit of this API key's account and mode was reached. Retry after ${retryAfterSeconds} s.`,
      retryAfterSeconds,
    });
  }
}
