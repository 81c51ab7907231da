import { describe, expect, it } from 'vitest';
import { isPassingFailure, problemResponse } from '../../functions/http/problem.ts';

const sdkError = (name: string, status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status, attempts: 3 }, ...extra });

describe('passing failures', () => {
  it.each([
    ['a throttle the SDK gave up on', sdkError('ProvisionedThroughputExceededException', 400)],
    ['an SDK timeout', Object.assign(sdkError('TimeoutError', 0), { code: 'ETIMEDOUT' })],
    ['a 5xx of the service', sdkError('InternalFailure', 500, { $fault: 'server' })],
    ['a connection the SDK saw reset', Object.assign(sdkError('Error', 0), { code: 'ECONNRESET' })],
    [
      "middy's early answer before the function's timeout",
      Object.assign(new Error('[AbortError]: The operation was aborted.'), {
        name: 'TimeoutError',
        cause: { package: '@middy/core' },
      }),
    ],
  ])('%s answers 503 temporarily_unavailable with Retry-After', (_, error) => {
    expect(isPassingFailure(error)).toBe(true);
    const response = problemResponse(error, 'req-1');
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(JSON.parse(response.body as string)).toMatchObject({ code: 'temporarily_unavailable' });
  });

  it.each([
    ['a refused condition', sdkError('ConditionalCheckFailedException', 400)],
    ['a bug of ours named like a timeout', Object.assign(new Error('x'), { name: 'TimeoutError' })],
    ['any other error', new TypeError('undefined is not a function')],
  ])('%s stays a 500 without Retry-After', (_, error) => {
    expect(isPassingFailure(error)).toBe(false);
    const response = problemResponse(error, 'req-1');
    expect(response.statusCode).toBe(500);
    expect(response.headers?.['Retry-After']).toBeUndefined();
  });
});
