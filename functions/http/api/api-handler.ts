import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj, type MiddyfiedHandler } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  apiKeyAuthenticator,
  idempotencyStore,
  linkRequestOfKey,
  now,
  rateLimiter,
} from '../../dependencies.ts';
import { RateLimitedError, UnauthorizedError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import { logger } from '../../logger.ts';
import { putMetrics } from '../../metrics.ts';
import type { RateLimitOutcome } from '../../ports/rate-limiter.ts';
import type { ApiCaller } from '../../use-cases/authenticate.ts';
import type { KeyedRequest } from '../../use-cases/keyed-creates.ts';
import { problemResponse } from '../problem.ts';
import { requestLog, type TimedContext } from '../request-log.ts';
import type { ApiAudit } from './api-audit.ts';
import { keyedRequestOf, withIdempotency } from './idempotency.ts';
import { type BodyMode, parseJsonBody } from './request-body.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;
type ApiLambda = MiddyfiedHandler<ApiEvent, ApiResult, Error, ApiContext>;

/** A request to a public route (`publicApiHandler`): nobody is authenticated. */
export interface PublicRequest {
  event: ApiEvent;
  /** The parsed JSON body (`undefined` when the route takes none or none was sent). */
  body: unknown;
  requestId: string;
}

/** A request to a merchant route (`apiHandler`): its API key was verified before the route's code runs. */
export interface AuthenticatedRequest extends PublicRequest {
  principal: Principal;
  /** On a route whose resource holds its own key (`idempotent: 'own'`): the request's key, when it has one. */
  idempotency?: KeyedRequest | undefined;
}

export interface MerchantRouteOptions {
  body: BodyMode;
  /**
   * Honours `Idempotency-Key` on POST requests (default on). `'own'`: the route keeps the key in the resource it
   * creates (functions/use-cases/keyed-creates.ts) and gets it as `idempotency`, instead of the store's records.
   */
  idempotent?: boolean | 'own';
  /** Counts the request against its (account, mode) rate limit (default on). */
  rateLimited?: boolean;
  /**
   * Records the change in the audit log (`apiAudit`, functions/http/api/api-audit.ts): given by the handler of each
   * route of `AUDITED_ROUTES` (test/unit/api-audit.test.ts), so that the functions that only read carry none of it.
   */
  audit?: ApiAudit;
}

interface ApiContext extends TimedContext {
  principal?: Principal;
  /** The key that called (`principal` is its account and mode): what the audit log names. */
  caller?: ApiCaller;
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
    const caller = await apiKeyAuthenticator().identify(request.event.headers.authorization);
    request.context.caller = caller;
    request.context.principal = caller.principal;
  },
});

/** The caller that `authentication` set; every step after it runs only once it has. */
function principalOf(context: ApiContext): Principal {
  if (!context.principal) throw new UnauthorizedError();
  return context.principal;
}

const rateLimit = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const outcome = await rateLimiter().hit(principalOf(request.context), now());
    request.context.rateLimit = outcome;
    if (!outcome.allowed) {
      putMetrics({ RateLimitRejections: 1 });
      throw new RateLimitedError(outcome.resetSeconds);
    }
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

/** The steps every route shares: the Lambda context for the logger → request log. */
const baseChain = () =>
  middy<ApiEvent, ApiResult, Error, ApiContext>().use(injectLambdaContext(logger)).use(requestLog());

/**
 * Wraps a merchant-API handler (`Authorization: Bearer <key>` required) in the one middleware chain every such
 * route shares: the Lambda context for the logger → request log → rate-limit headers → problem details →
 * authentication → rate limit → body parsing → idempotency → the route's code.
 */
export function apiHandler(
  options: MerchantRouteOptions,
  handle: (request: AuthenticatedRequest) => Promise<ApiResult>,
): ApiLambda {
  const counted = options.rateLimited ?? true;
  const chain = baseChain();
  if (counted) chain.use(rateLimitHeaders());
  chain.use(problemDetails()).use(authentication());
  if (counted) chain.use(rateLimit());
  const idempotent = options.idempotent ?? true;
  return chain.use(jsonBody(options.body)).handler((event, context) => {
    const request: AuthenticatedRequest = {
      event,
      principal: principalOf(context),
      body: context.body,
      requestId: event.requestContext.requestId,
    };
    if (idempotent === 'own') return handle({ ...request, idempotency: keyedRequestOf(request) });
    // Recorded in the audit log when it changes something; a replay of a stored answer changes nothing.
    const { audit } = options;
    const run = () =>
      audit ? audit(event, context.caller as ApiCaller, () => handle(request)) : handle(request);
    if (idempotent && event.requestContext.http.method === 'POST') {
      const deps = { store: idempotencyStore(), now, linkRequestOf: linkRequestOfKey };
      return withIdempotency(deps, request, run);
    }
    return run();
  });
}

/** The same chain for a public route (no API key): request log → problem details → body parsing → the code. */
export function publicApiHandler(
  options: { body: BodyMode },
  handle: (request: PublicRequest) => Promise<ApiResult>,
): ApiLambda {
  return baseChain()
    .use(problemDetails())
    .use(jsonBody(options.body))
    .handler((event, context) =>
      handle({ event, body: context.body, requestId: event.requestContext.requestId }),
    );
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return jsonText(statusCode, JSON.stringify(body), headers);
}

/** A response whose body is JSON already serialised (a document served as it is stored). */
export function jsonText(statusCode: number, text: string, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers },
    body: text,
  };
}
