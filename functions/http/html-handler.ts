import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { TemporarilyUnavailableError } from '../domain/errors.ts';
import { resolveLocale } from '../domain/locale.ts';
import { logger } from '../logger.ts';
import { type Messages, messagesFor } from './checkout/messages.ts';
import { html, htmlPage } from './html.ts';
import { isPassingFailure } from './problem.ts';
import { problemOf } from './problem-types.ts';
import { requestLog, type TimedContext } from './request-log.ts';

export type HtmlEvent = APIGatewayProxyEventV2;
export type HtmlResult = APIGatewayProxyStructuredResultV2;

/** Whether the page was requested over https (API Gateway sets `X-Forwarded-Proto`). */
export const isHttps = (event: HtmlEvent): boolean =>
  (event.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim() === 'https';

const ERROR_TEXT: Record<number, (t: Messages) => [string, string]> = {
  404: (t) => [t.notFoundTitle, t.notFoundText],
  502: (t) => [t.providerDownTitle, t.providerDownText],
  503: (t) => [t.notSetUpTitle, t.notSetUpText],
};

/** The page for a failure: our own wording per status, in the buyer's language, never the error's internals. */
export async function errorPage(
  status: number,
  event: HtmlEvent,
  retryAfterSeconds?: number,
): Promise<HtmlResult> {
  const locale = resolveLocale(undefined, event.headers['accept-language']);
  const t = await messagesFor(locale);
  const passing: [string, string] | undefined =
    retryAfterSeconds !== undefined && status === 503 ? [t.passingTitle, t.passingText] : undefined;
  const [title, text] = passing ?? ERROR_TEXT[status]?.(t) ?? [t.errorTitle, t.errorText];
  return htmlPage({
    status,
    lang: locale,
    title,
    body: html`<h1>${title}</h1><p>${text}</p><p class="muted">${t.reference}: ${event.requestContext.requestId}</p>`,
    https: isHttps(event),
    omitBody: event.requestContext.http.method === 'HEAD',
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/**
 * Every failure as a page: the status and `Retry-After` of the one table (problem-types.ts), our own wording per
 * status, with the security headers; 5xx logged with the cause.
 */
const pageErrors = (): MiddlewareObj<HtmlEvent, HtmlResult, Error, TimedContext> => ({
  onError: async (request) => {
    const error = isPassingFailure(request.error)
      ? new TemporarilyUnavailableError(request.error)
      : request.error;
    const { status, retryAfterSeconds } = problemOf(error);
    if (status >= 500) {
      logger.error('page failed', {
        request_id: request.event.requestContext.requestId,
        route: request.event.routeKey,
        error: request.error,
      });
    }
    request.response = await errorPage(status, request.event, retryAfterSeconds);
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
