/**
 * The one error family of the service. Every failure a client may see is a `ServiceError` with a stable
 * `code`; the HTTP layer turns it into RFC 9457 problem details in one place (`functions/http/problem.ts`).
 * `expose: false` marks errors whose message is internal: the client then gets only the generic title.
 */
export interface FieldError {
  /** JSON Pointer (RFC 6901) to the offending member of the request, e.g. `/amount/value`. */
  pointer: string;
  detail: string;
}

export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly expose: boolean;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(options: {
    code: string;
    status: number;
    title: string;
    detail?: string;
    expose?: boolean;
    errors?: FieldError[];
    headers?: Record<string, string>;
    cause?: unknown;
  }) {
    super(options.detail ?? options.title, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status;
    this.title = options.title;
    this.expose = options.expose ?? true;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export class InvalidJsonError extends ServiceError {
  constructor(detail = 'The request body is not valid JSON.') {
    super({ code: 'invalid_json', status: 400, title: 'Malformed JSON', detail });
  }
}

export class UnauthorizedError extends ServiceError {
  constructor(detail = 'A valid API key is required: send it as `Authorization: Bearer <key>`.') {
    super({
      code: 'unauthorized',
      status: 401,
      title: 'Unauthorized',
      detail,
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
}

export class NotFoundError extends ServiceError {
  constructor(detail = 'No such resource.') {
    super({ code: 'not_found', status: 404, title: 'Not found', detail });
  }
}

export class MethodNotAllowedError extends ServiceError {
  constructor(allowed: readonly string[]) {
    super({
      code: 'method_not_allowed',
      status: 405,
      title: 'Method not allowed',
      detail: `This resource supports: ${allowed.join(', ')}.`,
      headers: { Allow: allowed.join(', ') },
    });
  }
}

export class InvalidStateError extends ServiceError {
  constructor(detail: string) {
    super({ code: 'invalid_state', status: 409, title: 'Invalid state', detail });
  }
}

export class PayloadTooLargeError extends ServiceError {
  constructor(limitBytes: number) {
    super({
      code: 'payload_too_large',
      status: 413,
      title: 'Payload too large',
      detail: `The request body must be at most ${limitBytes} bytes.`,
    });
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  constructor() {
    super({
      code: 'unsupported_media_type',
      status: 415,
      title: 'Unsupported media type',
      detail: 'Send the request body as `Content-Type: application/json`.',
    });
  }
}

export class ValidationError extends ServiceError {
  constructor(errors: FieldError[]) {
    super({
      code: 'validation_failed',
      status: 422,
      title: 'Validation failed',
      detail: `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`,
      errors,
    });
  }
}

/** A conditional write lost a race: the caller re-reads and decides again. Never reaches a client as such. */
export class ConcurrentModificationError extends ServiceError {
  constructor(detail: string) {
    super({
      code: 'internal_error',
      status: 500,
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
  readonly reason: string;

  constructor(reason = 'Not verified.') {
    super({
      code: 'invalid_notification',
      status: 400,
      title: 'Invalid notification',
      detail: 'The notification could not be verified.',
    });
    this.reason = reason;
  }
}

/** The (account, mode) has no PSP able to take payments yet (e.g. live mode before Stripe is configured). */
export class PspNotConfiguredError extends ServiceError {
  constructor(detail = 'No payment provider is configured for this account and mode.') {
    super({ code: 'service_unavailable', status: 503, title: 'Service unavailable', detail });
  }
}

/** The PSP failed or could not be reached (its error is logged, never shown). */
export class PspUnavailableError extends ServiceError {
  constructor(cause?: unknown) {
    super({
      code: 'psp_unavailable',
      status: 502,
      title: 'Payment provider unavailable',
      detail: 'The payment provider did not answer as expected. Retry in a moment.',
      cause,
    });
  }
}

/** A retry with an `Idempotency-Key` already used for a different request (PRODUCT.md section 6). */
export class IdempotencyKeyReusedError extends ServiceError {
  constructor() {
    super({
      code: 'idempotency_key_reused',
      status: 422,
      title: 'Idempotency key reused',
      detail:
        'This Idempotency-Key was used with a different request in the last 24 hours. Use a new key for a new request.',
    });
  }
}

/** The first request with this `Idempotency-Key` is still running. */
export class IdempotencyInProgressError extends ServiceError {
  constructor() {
    super({
      code: 'idempotency_in_progress',
      status: 409,
      title: 'Idempotent request in progress',
      detail: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
      headers: { 'Retry-After': '1' },
    });
  }
}

/** Too many requests for this (account, mode) in the current window. */
export class RateLimitedError extends ServiceError {
  constructor(retryAfterSeconds: number) {
    super({
      code: 'rate_limited',
      status: 429,
      title: 'Too many requests',
      detail: `The request rate limit of this API key's account and mode was reached. Retry after ${retryAfterSeconds} s.`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
