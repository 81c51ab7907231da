import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isTransientAwsError } from '../clients/transient-errors.ts';
import { TemporarilyUnavailableError } from '../domain/errors.ts';
import { problemOf } from './problem-types.ts';

/**
 * RFC 9457 problem details: the one place where errors become API responses. Status, title, type and headers
 * come from the one table of problem types (`PROBLEM_TYPES`, problem-types.ts): a `ServiceError` shows its code,
 * title and detail; anything else is a 500 with a generic text, never internals. `type` is a relative URI
 * documented in docs/api.md#errors. A call to AWS that failed for a passing reason (throttled, timed out) is a
 * 503 with `Retry-After`, not a 500.
 */
export function problemResponse(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const problem = problemOf(isPassingFailure(error) ? new TemporarilyUnavailableError(error) : error);
  const body = {
    type: problem.type,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    ...problem.members,
    request_id: requestId,
  };
  return {
    statusCode: problem.status,
    headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...problem.headers },
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
