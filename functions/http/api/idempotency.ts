import { createHash } from 'node:crypto';
import { ServiceError, ValidationError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { StoredResponse } from '../../ports/idempotency-store.ts';
import {
  type IdempotencyDependencies,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  runIdempotently,
} from '../../use-cases/idempotency.ts';
import type { KeyedRequest } from '../../use-cases/keyed-creates.ts';
import { problemResponse } from '../problem.ts';
import { statusOf } from '../problem-types.ts';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

interface Request {
  event: {
    headers: Record<string, string | undefined>;
    rawPath: string;
    requestContext: { http: { method: string } };
  };
  principal: Principal;
  body: unknown;
  requestId: string;
}

type Result = { statusCode?: number; headers?: Record<string, string | number | boolean>; body?: string };

/** JSON with object keys sorted: the same body however its members are ordered or spaced. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? '';
}

const toStored = (result: Result): StoredResponse => ({
  statusCode: result.statusCode ?? 200,
  headers: Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
  ),
  body: result.body ?? '',
});

/**
 * The request's `Idempotency-Key` and its fingerprint (method, path and canonical JSON body), or undefined
 * without the header. A key of the wrong length is a validation failure.
 */
export function keyedRequestOf(request: Omit<Request, 'principal' | 'requestId'>): KeyedRequest | undefined {
  const key = request.event.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ValidationError([
      {
        pointer: `/${IDEMPOTENCY_KEY_HEADER}`,
        detail: `Must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
      },
    ]);
  }
  const { event, body } = request;
  const fingerprint = createHash('sha256')
    .update(`${event.requestContext.http.method} ${event.rawPath}\n${canonicalJson(body)}`)
    .digest('base64url');
  return { key, fingerprint };
}

/** A replayed response: the first one, marked. */
export const replayed = <T extends Result>(response: T): T => ({
  ...response,
  headers: { ...response.headers, [REPLAYED_HEADER]: 'true' },
});

/**
 * `Idempotency-Key` on a POST (docs/api.md#idempotency): without the header the request simply runs. Responses
 * below 500 are kept for replay, validation failures excepted (as the PSPs' own APIs do: the client may fix the body and
 * retry with the same key); a 5xx frees the key.
 */
export async function withIdempotency(
  deps: IdempotencyDependencies,
  request: Request,
  handle: () => Promise<Result>,
): Promise<Result> {
  const keyed = keyedRequestOf(request);
  if (keyed === undefined) return handle();
  const { principal } = request;
  const { key, fingerprint } = keyed;

  let thrown: unknown;
  const outcome = await runIdempotently(
    deps,
    { account: principal.account, mode: principal.mode, key },
    fingerprint,
    async () => {
      try {
        const response = toStored(await handle());
        return { response, keep: response.statusCode < 500 };
      } catch (error) {
        thrown = error;
        const keep =
          error instanceof ServiceError && statusOf(error) < 500 && !(error instanceof ValidationError);
        return { response: toStored(problemResponse(error, request.requestId)), keep };
      }
    },
  );
  if (outcome.replayed) return replayed(outcome.response);
  // Errors leave through the chain's problem-details middleware, which also logs the unexpected ones.
  if (thrown !== undefined) throw thrown;
  return outcome.response;
}
