import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestLog, type TimedContext } from '../../functions/http/request-log.ts';
import { logger } from '../../functions/logger.ts';

afterEach(() => vi.restoreAllMocks());

/** The line `requestLog` writes for a request answered with `status` (or that threw, without one). */
async function lineFor(status: number | undefined) {
  const debug = vi.spyOn(logger, 'debug').mockImplementation(() => undefined);
  const info = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
  const middleware = requestLog<TimedContext>();
  const request = {
    event: {
      routeKey: 'POST /v1/payment-links',
      requestContext: { requestId: 'req-1' },
    } as APIGatewayProxyEventV2,
    context: {} as TimedContext,
    response: status === undefined ? undefined : { statusCode: status },
    error: status === undefined ? new Error('thrown') : undefined,
    internal: {},
  };
  await middleware.before?.(request as never);
  await (status === undefined ? middleware.onError : middleware.after)?.(request as never);
  const [level, calls] = debug.mock.calls.length ? ['debug', debug.mock.calls] : ['info', info.mock.calls];
  expect(calls).toHaveLength(1);
  return { level, message: calls[0]?.[0], fields: calls[0]?.[1] };
}

describe('the request line', () => {
  it.each([200, 201, 204, 303])(
    'is at debug level for a %i (the access log has the request)',
    async (status) => {
      expect(await lineFor(status)).toEqual({
        level: 'debug',
        message: 'request',
        fields: {
          request_id: 'req-1',
          route: 'POST /v1/payment-links',
          status,
          duration_ms: expect.any(Number),
        },
      });
    },
  );

  it.each([400, 401, 422, 429, 500, undefined])('is at info level for a %s', async (status) => {
    expect(await lineFor(status)).toMatchObject({ level: 'info', message: 'request', fields: { status } });
  });
});
