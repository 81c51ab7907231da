import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRateLimiter } from '../../functions/adapters/dynamodb/rate-limiter.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

// Read once by functions/config.ts at the first request: a limit of 3 per day, so no window boundary
// falls inside the test in practice (the window arithmetic itself is tested below with a fixed clock).
process.env.RATE_LIMIT_REQUESTS = '3';
process.env.RATE_LIMIT_WINDOW_SECONDS = '86400';

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

describe('the per-(account, mode) rate limit', () => {
  it('answers 429 rate_limited with Retry-After once the limit is reached, for that tenant only', async () => {
    for (let index = 0; index < 3; index++) {
      expect((await stack.request('GET', '/v1/payment-links', { key: acme.api_key })).status).toBe(200);
    }
    const limited = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: { amount: { value: '1.00', currency: 'EUR' } },
      headers: { 'idempotency-key': 'limited' },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect(limited.body).toMatchObject({ code: 'rate_limited', type: '/problems/rate_limited', status: 429 });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);

    const live = await stack.issueKey('acme', 'live');
    expect((await stack.request('GET', '/v1/payment-links', { key: live.api_key })).status).toBe(200);
    const other = await stack.issueKey('globex', 'test');
    expect((await stack.request('GET', '/v1/payment-links', { key: other.api_key })).status).toBe(200);
  });

  it('does not count or limit the public OpenAPI document', async () => {
    for (let index = 0; index < 5; index++)
      expect((await stack.request('GET', '/v1/openapi.json')).status).toBe(200);
  });
});

describe('the fixed-window rate limiter', () => {
  const limiter = () =>
    new DynamoRateLimiter(documentClient, stack.tableName, { limit: 2, windowSeconds: 10 });
  const tenant = { account: 'window', mode: 'test' as const };

  it('allows the limit per window, says how long until the next, and starts again there', async () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + seconds * 1000);
    expect(await limiter().hit(tenant, at(0))).toEqual({ allowed: true });
    expect(await limiter().hit(tenant, at(3))).toEqual({ allowed: true });
    expect(await limiter().hit(tenant, at(3.5))).toEqual({ allowed: false, retryAfterSeconds: 7 });
    expect(await limiter().hit(tenant, at(9.9))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await limiter().hit(tenant, at(10))).toEqual({ allowed: true });
  });

  it('reserves tokens in growing leases, so a busy container writes far less than once per request', async () => {
    const sent: unknown[] = [];
    const counting = {
      send: (command: unknown) => {
        sent.push(command);
        return documentClient.send(command as never);
      },
    } as unknown as typeof documentClient;
    const busy = new DynamoRateLimiter(counting, stack.tableName, { limit: 1000, windowSeconds: 60 });
    const at = new Date(Date.UTC(2026, 0, 3));
    for (let index = 0; index < 100; index++)
      expect(await busy.hit({ account: 'busy', mode: 'test' }, at)).toEqual({ allowed: true });
    // Leases of 1, 2, 4, 8, then 10 (1% of the limit): 13 writes for 100 requests.
    expect(sent.length).toBe(13);
  });

  it('never exceeds the limit with leases, and hands out the last tokens one at a time', async () => {
    const now = new Date(Date.UTC(2026, 0, 4));
    const tenant = { account: 'leases', mode: 'test' as const };
    const containers = Array.from(
      { length: 5 },
      () => new DynamoRateLimiter(documentClient, stack.tableName, { limit: 300, windowSeconds: 60 }),
    );
    let allowed = 0;
    for (let round = 0; round < 100; round++) {
      const results = await Promise.all(containers.map((container) => container.hit(tenant, now)));
      allowed += results.filter((result) => result.allowed).length;
    }
    expect(allowed).toBeLessThanOrEqual(300);
    // What containers reserved and did not spend is bounded by their last leases (at most 3 each here).
    expect(allowed).toBeGreaterThanOrEqual(300 - 5 * 3);
  });

  it('never lets concurrent requests overshoot the limit', async () => {
    const now = new Date(Date.UTC(2026, 0, 2));
    const racer = { account: 'racer', mode: 'test' as const };
    const results = await Promise.all(Array.from({ length: 10 }, () => limiter().hit(racer, now)));
    expect(results.filter((result) => result.allowed)).toHaveLength(2);
  });
});
