import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isTransientAwsError } from '../clients/transient-errors.ts';
import { ServiceError, TemporarilyUnavailableError } from '../domain/errors.ts';

/**
 * RFC 9457 problem details: the one place where errors become responses. A `ServiceError` shows its code,
 * title and (when `expose`) its detail; anything else is a 500 with a generic text, never internals.
 * `type` is a relative URI documented in docs/api.md#errors. The headers an error implies are set here too: the
 * authentication scheme on a 401, `Retry-After` when the error says when a retry may succeed. A call to AWS that
 * failed for a passing reason (throttled, timed out) is a 503 with `Retry-After`, not a 500.
 */
export function problemResponse(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const mapped = isPassingFailure(error) ? new TemporarilyUnavailableError(error) : error;
  const known = mapped instanceof ServiceError && mapped.expose ? mapped : undefined;
  const status = known?.status ?? 500;
  const code = known?.code ?? 'internal_error';
  const body = {
    type: `/problems/${code}`,
    title: known?.title ?? 'Internal error',
    status,
    detail: known
      ? known.message
      : 'Something went wrong on our side. Retry later; the request id helps support.',
    code,
    ...(known?.errors ? { errors: known.errors } : {}),
    request_id: requestId,
  };
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      ...(known?.status === 401 && { 'WWW-Authenticate': 'Bearer' }),
      ...(known?.retryAfterSeconds !== undefined && { 'Retry-After': String(known.retryAfterSeconds) }),
    },
    body: JSON.stringify(body),
  };
}

/**
 * A failure the same request may not meet a moment later: a call to AWS that stayed throttled, timed out or
 * failed after the SDK's retries, or middy's early answer when the function was about to run out of time
 * (`timeoutEarlyResponse`, most often because what it called was slow).
 */
export function isPassingFailure(error: unknown): boolean {
  if (isTransientAwsError(error)) return true;
  const cause = error instanceof Error ? (error.cause as { package?: unknown } | undefined) : undefined;
  return error instanceof Error && error.name === 'TimeoutError' && cause?.package === '@middy/core';
}
