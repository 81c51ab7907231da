import type * as errors from '../domain/errors.ts';
import { type FieldError, PspSessionNotEndedError, ServiceError } from '../domain/errors.ts';

/** Every concrete error class of the domain: those that declare their `code`. */
type ErrorClass = Extract<
  (typeof errors)[keyof typeof errors],
  { readonly code: string; prototype: ServiceError }
>;
/** Every `code` a problem may carry, read off the error classes (functions/domain/errors.ts). */
export type ErrorCode = ErrorClass['code'];
/** The errors that carry a code. */
type ErrorOf<C extends ErrorCode> = InstanceType<Extract<ErrorClass, { readonly code: C }>>;

/** How the errors of one code answer over HTTP (RFC 9457 problem details). */
interface ProblemType<E extends ServiceError> {
  readonly status: number;
  readonly title: string;
  /** The `detail` a client reads; by default the error's message. */
  readonly detail?: (error: E) => string;
  /** Seconds after which the same request may succeed: the `Retry-After` header, and the page's wording. */
  readonly retryAfter?: number | ((error: E) => number | undefined);
  /** Further headers the answer carries. */
  readonly headers?: (error: E) => Record<string, string>;
  /** Extension members of the body besides `code` and `request_id` (RFC 9457 §3.2). */
  readonly members?: (error: E) => { errors: FieldError[] };
}

/** About one PSP call's bound: a PSP that failed to end a session is asked again after this. */
const SESSION_END_RETRY_AFTER_SECONDS = 5;

/**
 * The one table from domain errors to HTTP: status, title and headers per code. A closed mapping: a code of a
 * new error class without its row here fails the type check (and test/unit/problem-types.test.ts).
 * `internal_error` is also the answer to anything that is not a `ServiceError`; its `detail` replaces the message,
 * which is internal.
 */
export const PROBLEM_TYPES: { readonly [C in ErrorCode]: ProblemType<ErrorOf<C>> } = {
  invalid_json: { status: 400, title: 'Malformed JSON' },
  invalid_notification: { status: 400, title: 'Invalid notification' },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    headers: () => ({ 'WWW-Authenticate': 'Bearer' }),
  },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    headers: (error) => ({ Allow: error.allowed.join(', ') }),
  },
  idempotency_in_progress: { status: 409, title: 'Idempotent request in progress', retryAfter: 1 },
  invalid_state: { status: 409, title: 'Invalid state' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  validation_failed: {
    status: 422,
    title: 'Validation failed',
    members: (error) => ({ errors: error.errors }),
  },
  rate_limited: { status: 429, title: 'Too many requests', retryAfter: (error) => error.resetSeconds },
  internal_error: {
    status: 500,
    title: 'Internal error',
    detail: () => 'Something went wrong on our side. Retry later; the request id helps support.',
  },
  psp_unavailable: { status: 502, title: 'Payment provider unavailable', retryAfter: 1 },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    detail: (error) =>
      error instanceof PspSessionNotEndedError
        ? `${error.message} Retry after \`Retry-After\` seconds.`
        : error.message,
    retryAfter: (error) =>
      error instanceof PspSessionNotEndedError ? SESSION_END_RETRY_AFTER_SECONDS : undefined,
  },
  temporarily_unavailable: {
    status: 503,
    title: 'Temporarily unavailable',
    detail: (error) => `${error.message} Retry after Retry-After seconds.`,
    retryAfter: 1,
  },
};

/** What an error answers over HTTP: its row of the table, filled in with the data of the error. */
export interface Problem {
  readonly status: number;
  readonly code: ErrorCode;
  /** `/problems/<code>`, relative to the base URL (docs/api.md#errors). */
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly members: { errors?: FieldError[] };
  readonly retryAfterSeconds: number | undefined;
  /** The headers the error implies, `Retry-After` included. */
  readonly headers: Record<string, string>;
}

export const problemTypeUri = (code: ErrorCode): string => `/problems/${code}`;

/** The HTTP status of an error; 500 for anything that is not a `ServiceError`. */
export const statusOf = (error: unknown): number => problemOf(error).status;

/**
 * The answer to an error: a `ServiceError` by the row of its code, anything else (a bug, an SDK error) as
 * `internal_error`, whose detail never shows the error's message.
 */
export function problemOf(error: unknown): Problem {
  const known = error instanceof ServiceError && Object.hasOwn(PROBLEM_TYPES, error.code);
  const code = (known ? error.code : 'internal_error') as ErrorCode;
  // Anything else answers as an internal fact, whose row reads nothing of it but its fixed detail.
  const fact = known ? error : new ServiceError('');
  // The row of `code` takes the errors of `code`; the lookup cannot say so to the compiler.
  const row = PROBLEM_TYPES[code] as ProblemType<ServiceError>;
  const retryAfterSeconds = typeof row.retryAfter === 'function' ? row.retryAfter(fact) : row.retryAfter;
  return {
    status: row.status,
    code,
    type: problemTypeUri(code),
    title: row.title,
    detail: row.detail ? row.detail(fact) : fact.message,
    members: row.members?.(fact) ?? {},
    retryAfterSeconds,
    headers: {
      ...row.headers?.(fact),
      ...(retryAfterSeconds !== undefined && { 'Retry-After': String(retryAfterSeconds) }),
    },
  };
}
