/**
 * Whether an AWS SDK call failed for a reason that passes: throttled, timed out, a dropped connection or a 5xx of
 * the service, after the SDK's own retries. The same request may then succeed in a moment, so the API answers
 * 503 with `Retry-After` instead of a 500 (functions/http/problem.ts). The names are those the SDK's retry
 * strategy treats as throttling or transient (@smithy/service-error-classification).
 */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'TransactionConflictException',
]);
const TRANSIENT = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

export function isTransientAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdk = error as Error & {
    code?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  // Only errors that came through an SDK client (it sets $metadata): a function's own timeout is not one.
  if (!sdk.$metadata) return false;
  return (
    THROTTLING.has(sdk.name) ||
    TRANSIENT.has(sdk.name) ||
    NETWORK_CODES.has(sdk.code ?? '') ||
    sdk.$retryable !== undefined ||
    (sdk.$metadata?.httpStatusCode ?? 0) >= 500
  );
}
