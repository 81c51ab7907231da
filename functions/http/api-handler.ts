import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiKeyAuthenticator, idempotencyStore, now, rateLimiter } from '../dependencies.ts';
import { RateLimitedError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { RateLimitOutcome } from '../ports/rate-limiter.ts';
import { withIdempotency } from './idempotency.ts';
import { problemResponse } from './problem.ts';
import { type BodyMode, parseJsonBody } from './request-body.ts';
import { requestLog, type TimedContext } from './request-log.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

export interface ApiRequest {
  event: ApiEvent;
  /** The caller; present on every route declared with `auth: true`. */
  principal: Principal;
  /** The parsed JSON body (`undefined` when the route takes none or none was sent). */
  body: unknown;
  requestId: string;
}

export interface ApiRouteOptions {
  /** Requires `Authorization: Bearer <key>` (every merchant route; not the public OpenAPI document). */
  auth: boolean;
  body: BodyMode;
  /** Honours `Idempotency-Key` on POST requests (default on; authenticated routes only). */
  idempotent?: boolean;
  /** Counts the request against its (account, mode) rate limit (default on; authenticated routes only). */
  rateLimited?: boolean;
}

interface ApiContext extends TimedContext {
  principal?: Principal;
  body?: unknown;
  rateLimit?: RateLimitOutcome;
}

/** Every failure, expected or not, leaves as problem+json; the unexpected ones are logged with their cause. */
const problemDetails = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  onError: (request) => {
    request.response = problemResponse(request.error, request.event.requestContext.requestId);
    if ((request.response.statusCode ?? 500) >= 500) {
      logger.error('request failed', {
        request_id: request.event.requestContext.requestId,
        route: request.event.routeKey,
        error: request.error,
      });
    }
  },
});

const authentication = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    request.context.principal = await apiKeyAuthenticator().authenticate(request.event.headers.authorization);
  },
});

const rateLimit = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const outcome = await rateLimiter().hit(request.context.principal as Principal, now());
    request.context.rateLimit = outcome;
    if (!outcome.allowed) throw new RateLimitedError(outcome.resetSeconds);
  },
});

/**
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (IETF RateLimit header fields draft) on every
 * response to a counted request, successes and problems alike (docs/api.md#rate-limits). Registered ahead of
 * the problem-details middleware, so that its `onError` runs after the problem response exists.
 */
const rateLimitHeaders = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  const addHeaders = (request: { context: ApiContext; response: ApiResult | null | undefined }) => {
    const outcome = request.context.rateLimit;
    if (!outcome || !request.response) return;
    request.response.headers = {
      ...request.response.headers,
      'RateLimit-Limit': String(outcome.limit),
      'RateLimit-Remaining': String(outcome.remaining),
      'RateLimit-Reset': String(outcome.resetSeconds),
    };
  };
  return { after: addHeaders, onError: addHeaders };
};

const jsonBody = (mode: BodyMode): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: (request) => {
    request.context.body = parseJsonBody(request.event, mode);
  },
});

/**
 * Wraps a merchant-API handler in the one middleware chain every route shares: the Lambda context for the
 * logger → request log → rate-limit headers → problem details → authentication → rate limit → body parsing →
 * idempotency → the route's code.
 */
export function apiHandler(options: ApiRouteOptions, handle: (request: ApiRequest) => Promise<ApiResult>) {
  const counted = options.auth && (options.rateLimited ?? true);
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(injectLambdaContext(logger))
    .use(requestLog());
  if (counted) chain.use(rateLimitHeaders());
  chain.use(problemDetails());
  if (options.auth) chain.use(authentication());
  if (counted) chain.use(rateLimit());
  const idempotent = options.auth && (options.idempotent ?? true);
  return chain.use(jsonBody(options.body)).handler((event, context) => {
    const request: ApiRequest = {
      event,
      principal: context.principal as Principal,
      body: context.body,
      requestId: event.requestContext.requestId,
    };
    if (idempotent && event.requestContext.http.method === 'POST') {
      return withIdempotency({ store: idempotencyStore(), now }, request, () => handle(request));
    }
    return handle(request);
  });
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}
