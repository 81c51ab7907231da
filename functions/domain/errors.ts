/**
 * The one error family of the service. Every failure a client may see is a `ServiceError`: a fact with a stable
 * `code`, its message (what a client may read of it) and the data of the fact (the invalid fields, the seconds
 * until a rate-limit window ends, the methods a path allows). Nothing here knows HTTP: how each code answers
 * (its problem type, title and headers) is one table, `PROBLEM_TYPES` in functions/http/problem-types.ts, which
 * the compiler keeps complete (a code without its row does not type-check). A new error: a class here with a `static code`,
 * then its row there and its meaning in functions/http/api/response-schemas.ts (docs/decisions.md#errors).
 */
export interface FieldError {
  /** JSON Pointer (RFC 6901) to the offending member of the request, e.g. `/amount/value`. */
  pointer: string;
  detail: string;
}

/** What every concrete error class declares about itself. */
export interface ErrorClass {
  readonly code: string;
}

export class ServiceError extends Error {
  readonly code: string;

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = (new.target as unknown as ErrorClass).code;
  }
}

export class InvalidJsonError extends ServiceError {
  static readonly code = 'invalid_json';

  constructor(detail = 'The request body is not valid JSON.') {
    super(detail);
  }
}

export class UnauthorizedError extends ServiceError {
  static readonly code = 'unauthorized';

  constructor(detail = 'A valid API key is required: send it as `Authorization: Bearer <key>`.') {
    super(detail);
  }
}

export class NotFoundError extends ServiceError {
  static readonly code = 'not_found';

  constructor(detail = 'No such resource.') {
    super(detail);
  }
}

export class MethodNotAllowedError extends ServiceError {
  static readonly code = 'method_not_allowed';

  /** The methods the path does support. */
  readonly allowed: readonly string[];

  constructor(allowed: readonly string[]) {
    super(`This resource supports: ${allowed.join(', ')}.`);
    this.allowed = allowed;
  }
}

export class InvalidStateError extends ServiceError {
  static readonly code = 'invalid_state';

  constructor(detail: string) {
    super(detail);
  }
}

export class PayloadTooLargeError extends ServiceError {
  static readonly code = 'payload_too_large';

  constructor(limitBytes: number) {
    super(`The request body must be at most ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  static readonly code = 'unsupported_media_type';

  constructor() {
    super('Send the request body as `Content-Type: application/json`.');
  }
}

export class ValidationError extends ServiceError {
  static readonly code = 'validation_failed';

  readonly errors: FieldError[];

  constructor(errors: FieldError[]) {
    super(`The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`);
    this.errors = errors;
  }
}

/**
 * A conditional write lost a race: the caller re-reads and decides again. Never reaches a client as such: its
 * code is `internal_error`, whose message stays in our logs.
 */
export class ConcurrentModificationError extends ServiceError {
  static readonly code = 'internal_error';

  constructor(detail: string) {
    super(detail);
  }
}

/**
 * A notification that is forged, foreign, malformed or about nothing we know. Every one gets the same answer, so
 * a sender learns nothing about which links, sessions or credentials exist; `reason` is for our logs only.
 */
export class InvalidNotificationError extends ServiceError {
  static readonly code = 'invalid_notification';
  /** Its place in the closed set of PSP failures (`PspFailure`, functions/ports/psp.ts). */
  readonly kind = 'notification_not_authentic';

  readonly reason: string;
  /** The id the notification named, when the PSP said it knows no such thing (no such payment for this key). */
  readonly unknownId: string | undefined;

  constructor(reason = 'Not verified.', options: { unknownId?: string } = {}) {
    super('The notification could not be verified.');
    this.reason = reason;
    this.unknownId = options.unknownId;
  }
}

/** The (account, mode) has no PSP able to take payments yet (e.g. live mode before any connection is added). */
export class PspNotConfiguredError extends ServiceError {
  static readonly code = 'service_unavailable';

  constructor(detail = 'No payment provider is configured for this account and mode.') {
    super(detail);
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

/**
 * A payment of the link is being collected by its PSP (a bank debit: docs/orchestration.md#money-under-way), so the
 * link cannot be canceled or expire until that payment settles, days later: it may still pay the link. Its PSP says
 * so, or said so before (`Payment.money_under_way`); retrying in a moment would not help, unlike
 * `PspSessionNotEndedError`.
 */
export class PaymentUnderWayError extends InvalidStateError {
  constructor() {
    super(
      'A payment of this link is being collected by its payment provider (a bank debit can take days). ' +
        'The link can be canceled once that payment settles: `payment_link.paid` or ' +
        '`payment_link.payment_failed` tells when.',
    );
  }
}

/**
 * The link's PSP session may still be payable and its PSP could not end it, so the change that would drop it
 * was not made: a link never forgets a session it failed to end (docs/orchestration.md#one-payable-session).
 * Retrying shortly is safe; the PSP's error is logged, never shown.
 */
export class PspSessionNotEndedError extends ServiceError {
  static readonly code = 'service_unavailable';

  constructor(cause?: unknown) {
    super('The payment provider could not end the checkout session of this link, so nothing was changed.', {
      cause,
    });
  }
}

/** The PSP failed or could not be reached (its error is logged, never shown); retrying in a moment is safe. */
export class PspUnavailableError extends ServiceError {
  static readonly code = 'psp_unavailable';

  constructor(cause?: unknown) {
    super('The payment provider did not answer as expected. Retry in a moment.', { cause });
  }
}

/**
 * A service we depend on (the table, the queue) throttled us or did not answer, beyond its client's own retries:
 * the same request may succeed in a moment (its error is logged, never shown).
 */
export class TemporarilyUnavailableError extends ServiceError {
  static readonly code = 'temporarily_unavailable';

  constructor(cause?: unknown) {
    super('The request could not be completed just now.', { cause });
  }
}

/** A retry with an `Idempotency-Key` already used for a different request (docs/api.md#idempotency). */
export class IdempotencyKeyReusedError extends ServiceError {
  static readonly code = 'idempotency_key_reused';

  constructor() {
    super(
      'This Idempotency-Key was used with a different request in the last 24 hours. Use a new key for a new request.',
    );
  }
}

/** The first request with this `Idempotency-Key` is still running: a retry shortly may find it done. */
export class IdempotencyInProgressError extends ServiceError {
  static readonly code = 'idempotency_in_progress';

  constructor() {
    super('A request with this Idempotency-Key is still being processed. Retry shortly.');
  }
}

/** Too many requests for this (account, mode) in the current window, which ends in `resetSeconds`. */
export class RateLimitedError extends ServiceError {
  static readonly code = 'rate_limited';

  readonly resetSeconds: number;

  constructor(resetSeconds: number) {
    super(
      `The request rate limit of this API key's account and mode was reached. Retry after ${resetSeconds} s.`,
    );
    this.resetSeconds = resetSeconds;
  }
}
