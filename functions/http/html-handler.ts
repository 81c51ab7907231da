import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ServiceError, TemporarilyUnavailableError } from '../domain/errors.ts';
import { logger } from '../logger.ts';
import { html, htmlPage } from './html.ts';
import { isPassingFailure } from './problem.ts';
import { requestLog, type TimedContext } from './request-log.ts';

export type HtmlEvent = APIGatewayProxyEventV2;
export type HtmlResult = APIGatewayProxyStructuredResultV2;

/** Whether the page was requested over https (API Gateway sets `X-Forwarded-Proto`). */
export const isHttps = (event: HtmlEvent): boolean =>
  (event.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim() === 'https';

const ERROR_TEXT: Record<number, [string, string]> = {
  404: ['Page not found', 'There is nothing at this address. Check the link you were given.'],
  502: ['Payment provider unavailable', 'The payment provider did not answer. Please try again in a moment.'],
  503: [
    'Payments not available yet',
    'This merchant has not finished setting up payments, so this link cannot be paid yet. Please contact the merchant.',
  ],
};

const PASSING_FAILURE_TEXT: [string, string] = [
  'Temporarily unavailable',
  'We could not complete this just now. Please try again in a moment.',
];

/** The page for a failure: our own wording per status, never the error's internals. */
export function errorPage(status: number, event: HtmlEvent, retryAfterSeconds?: number): HtmlResult {
  const passing = retryAfterSeconds !== undefined && status === 503 ? PASSING_FAILURE_TEXT : undefined;
  const [title, text] = passing ??
    ERROR_TEXT[status] ?? [
      'Something went wrong',
      'Something went wrong on our side. Please try again later.',
    ];
  return htmlPage({
    status,
    title,
    body: html`<h1>${title}</h1><p>${text}</p><p class="muted">Reference: ${event.requestContext.requestId}</p>`,
    https: isHttps(event),
    omitBody: event.requestContext.http.method === 'HEAD',
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/** Every failure as a page: our own wording per status, with the security headers; 5xx logged with the cause. */
const pageErrors = (): MiddlewareObj<HtmlEvent, HtmlResult, Error, TimedContext> => ({
  onError: (request) => {
    const error = isPassingFailure(request.error)
      ? new TemporarilyUnavailableError(request.error)
      : request.error;
    const known = error instanceof ServiceError && error.expose ? error : undefined;
    const status = known?.status ?? 500;
    if (status >= 500) {
      logger.error('page failed', {
        request_id: request.event.requestContext.requestId,
        route: request.event.routeKey,
        error: request.error,
      });
    }
    request.response = errorPage(status, request.event, known?.retryAfterSeconds);
  },
});

/**
 * The wrapper of buyer-facing HTML routes (checkout, sandbox PSP): a request log line, and every failure as a
 * proper page with the security headers (a 404/502/503 page, or a generic 500 page), never internals.
 */
export function htmlHandler(handle: (event: HtmlEvent, context: TimedContext) => Promise<HtmlResult>) {
  return middy<HtmlEvent, HtmlResult, Error, TimedContext>()
    .use(injectLambdaContext(logger))
    .use(requestLog())
    .use(pageErrors())
    .handler((event, context) => handle(event, context));
}
