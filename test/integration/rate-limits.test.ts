import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRateLimiter } from '../../functions/adapters/dynamodb/rate-limiter.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  // A limit of 3 per day, so no window boundary falls inside the test in practice (the window arithmetic itself
  // is tested below with a fixed clock).
  stack = await startTestStack({
    environment: { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_WINDOW_SECONDS: '86400' },
  });
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

describe('the per-(account, mode) rate limit', () => {
  it('answers 429 rate_limited with Retry-After once the limit is reached, for that tenant only', async () => {
    const answers = [];
    for (let index = 0; index < 3; index++) {
      answers.push(await stack.request('GET', '/v1/payment-links', { key: acme.api_key }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
    for (const answer of answers) {
      expect(answer.headers.get('ratelimit-limit')).toBe('3');
      expect(Number(answer.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
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
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toBe(limited.headers.get('retry-after'));

    const live = await stack.issueKey('acme', 'live');
    expect((await stack.request('GET', '/v1/payment-links', { key: live.api_key })).status).toBe(200);
    const other = await stack.issueKey('globex', 'test');
    expect((await stack.request('GET', '/v1/payment-links', { key: other.api_key })).status).toBe(200);
  });

  it('sends the RateLimit headers on problems too: a 422, a 404', async () => {
    const globex = await stack.issueKey('headers', 'test');
    const invalid = await stack.request('POST', '/v1/payment-links', {
      key: globex.api_key,
      body: { amount: { value: '-1', currency: 'EUR' } },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('ratelimit-remaining')).toBe('2');
    const missing = await stack.request('GET', '/v1/payment-links/pl_000000000000000000000000', {
      key: globex.api_key,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit-limit')).toBe('3');
    expect(missing.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('does not count or limit the public OpenAPI document', async () => {
    for (let index = 0; index < 5; index++) {
      const response = await stack.request('GET', '/v1/openapi.json');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBeNull();
    }
  });
});

describe('the fixed-window rate limiter', () => {
  const limiter = () =>
    new DynamoRateLimiter(documentClient(), stack.tableName, { limit: 2, windowSeconds: 10 });
  const tenant = { account: 'window', mode: 'test' as const };

  it('allows the limit per window, says how long until the next, and starts again there', async () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + seconds * 1000);
    const state = (allowed: boolean, remaining: number, resetSeconds: number) => ({
      allowed,
      limit: 2,
      remaining,
      resetSeconds,
    });
    expect(await limiter().hit(tenant, at(0))).toEqual(state(true, 1, 10));
    expect(await limiter().hit(tenant, at(3))).toEqual(state(true, 0, 7));
    expect(await limiter().hit(tenant, at(3.5))).toEqual(state(false, 0, 7));
    expect(await limiter().hit(tenant, at(9.9))).toEqual(state(false, 0, 1));
    expect(await limiter().hit(tenant, at(10))).toEqual(state(true, 1, 10));
  });

  it('remembers a spent window until it ends: refused requests cost no store write', async () => {
    const sent: unknown[] = [];
    const counting = {
      send: (command: unknown) => {
        sent.push(command);
        return documentClient().send(command as never);
      },
    } as unknown as ReturnType<typeof documentClient>;
    const container = new DynamoRateLimiter(counting, stack.tableName, { limit: 2, windowSeconds: 60 });
    const flooder = { account: 'flooder', mode: 'test' as const };
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 5) + seconds * 1000);
    expect((await container.hit(flooder, at(0))).allowed).toBe(true);
    expect((await container.hit(flooder, at(1))).allowed).toBe(true);
    expect((await container.hit(flooder, at(2))).allowed).toBe(false);
    const writesWhenSpent = sent.length;
    for (let index = 0; index < 100; index++) {
      expect(await container.hit(flooder, at(3 + index / 10))).toMatchObject({
        allowed: false,
        remaining: 0,
      });
    }
    expect(sent.length).toBe(writesWhenSpent);
    expect((await container.hit(flooder, at(60))).allowed).toBe(true);
    expect(sent.length).toBe(writesWhenSpent + 1);
  });

  it('reserves tokens in growing leases, so a busy container writes far less than once per request', async () => {
    const sent: unknown[] = [];
    const counting = {
      send: (command: unknown) => {
        sent.push(command);
        return documentClient().send(command as never);
      },
    } as unknown as ReturnType<typeof documentClient>;
    const busy = new DynamoRateLimiter(counting, stack.tableName, { limit: 1000, windowSeconds: 60 });
    const at = new Date(Date.UTC(2026, 0, 3));
    for (let index = 0; index < 100; index++)
      expect(await busy.hit({ account: 'busy', mode: 'test' }, at)).toMatchObject({ allowed: true });
    // Leases of 1, 2, 4, 8, then 10 (1% of the limit): 13 writes for 100 requests.
    expect(sent.length).toBe(13);
  });

  it('never exceeds the limit with leases, and hands out the last tokens one at a time', async () => {
    const now = new Date(Date.UTC(2026, 0, 4));
    const tenant = { account: 'leases', mode: 'test' as const };
    const containers = Array.from(
      { length: 5 },
      () => new DynamoRateLimiter(documentClient(), stack.tableName, { limit: 300, windowSeconds: 60 }),
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
