import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { logger } from '../logger.ts';

export interface TimedContext extends Context {
  startedAt?: number;
}

/**
 * One JSON log line per request, for the merchant API and the HTML pages alike: route, status, timing and
 * request id. Never headers or bodies (they carry keys). A request answered below 400 logs at debug level: API
 * Gateway's access log has a line for every request already (docs/decisions.md#operations). State
 * lives on the invocation's context, not in the closure: the local stack runs requests concurrently. Use it
 * first, so its `after`/`onError` run last and see the final response.
 */
export function requestLog<C extends TimedContext>(): MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  C
> {
  const log = (request: {
    event: APIGatewayProxyEventV2;
    context: C;
    response?: APIGatewayProxyStructuredResultV2 | null;
  }) => {
    const status = request.response?.statusCode;
    logger[status !== undefined && status < 400 ? 'debug' : 'info']('request', {
      request_id: request.event.requestContext.requestId,
      route: request.event.routeKey,
      status,
      duration_ms: Math.round(performance.now() - (request.context.startedAt ?? 0)),
    });
  };
  return {
    before: ({ context }) => {
      context.startedAt = performance.now();
    },
    after: log,
    onError: log,
  };
}
