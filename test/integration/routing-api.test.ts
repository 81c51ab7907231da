import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../../functions/domain/connection.ts';
import { PAYMENT_METHODS } from '../../functions/domain/payment-methods.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let key: IssuedApiKey;
let a: PspConnection;
let b: PspConnection;
let live: PspConnection;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('router', 'test');
  a = await addConnection({ account: 'router', mode: 'test', provider: 'sandbox', name: 'A' });
  b = await addConnection({ account: 'router', mode: 'test', provider: 'sandbox', name: 'B' });
  live = await addConnection({
    account: 'router',
    mode: 'live',
    provider: 'stripe',
    name: 'Live',
    credentials: { secret_key: 'sk_live_x', webhook_secret: 'whsec_x' },
  });
});
afterAll(() => stack.stop());

const noCounts = { opened: 0, paid: 0, failed: 0, left: 0, outage: 0, paid_share: null };
const NO_PERFORMANCE = { last_hour: noCounts, last_24h: noCounts };

const get = (path: string, apiKey = key.api_key) => stack.request('GET', path, { key: apiKey });
const putRouting = (body: unknown) => stack.request('PUT', '/v1/routing', { key: key.api_key, body });

describe('GET /v1/psp-connections', () => {
  it("lists the mode's connections in the order they were added, with health and without credentials", async () => {
    const response = await get('/v1/psp-connections');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([
      {
        id: a.id,
        object: 'psp_connection',
        provider: 'sandbox',
        name: 'A',
        enabled: true,
        health: 'healthy',
        methods: [...PAYMENT_METHODS],
        fees: [],
        performance: NO_PERFORMANCE,
      },
      {
        id: b.id,
        object: 'psp_connection',
        provider: 'sandbox',
        name: 'B',
        enabled: true,
        health: 'healthy',
        methods: [...PAYMENT_METHODS],
        fees: [],
        performance: NO_PERFORMANCE,
      },
    ]);
    expectDocumented('get', '/v1/psp-connections', response);
  });

  it('shows the built-in sandbox to a test-mode account without connections', async () => {
    const other = await stack.issueKey('no-connections', 'test');
    const response = await get('/v1/psp-connections', other.api_key);
    expect(response.body.data).toEqual([
      expect.objectContaining({ id: BUILT_IN_SANDBOX_ID, provider: 'sandbox' }),
    ]);
  });
});

describe('GET and PUT /v1/routing', () => {
  it('reads the connections in the order added while no routing is set', async () => {
    const response = await get('/v1/routing');
    expect(response.body).toEqual({ rules: [], default: [a.id, b.id] });
    expectDocumented('get', '/v1/routing', response);
  });

  it('stores a document and routes checkout by its first matching rule', async () => {
    const routing = {
      rules: [
        {
          name: 'b2b euro',
          when: {
            currency: ['EUR'],
            amount_min: '10.00',
            amount_max: '5000.00',
            metadata: { channel: 'b2b' },
          },
          then: { priority: [b.id, a.id] },
        },
      ],
      default: [a.id, b.id],
    };
    const stored = await putRouting(routing);
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual(routing);
    expectDocumented('put', '/v1/routing', stored);
    expect((await get('/v1/routing')).body).toEqual(routing);

    const b2b = await createLink(stack, key.api_key, { metadata: { channel: 'b2b' } });
    await navigate(b2b.checkout_url);
    expect((await storedLink(b2b.id)).psp_session?.connection_id).toBe(b.id);
    const retail = await createLink(stack, key.api_key);
    await navigate(retail.checkout_url);
    expect((await storedLink(retail.id)).psp_session?.connection_id).toBe(a.id);
  });

  it('refuses unknown, other-mode and malformed references with pointers, and keeps the routing', async () => {
    const before = (await get('/v1/routing')).body;
    const response = await putRouting({
      rules: [
        {
          name: 'x',
          when: {},
          then: {
            split: [
              { connection: a.id, weight: 0 },
              { connection: live.id, weight: 2 },
            ],
          },
        },
        { name: 'y', when: { amount_min: '5' }, then: { priority: [] } },
      ],
      default: ['pc_000000000000000000000000'],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual([
      '/rules/0/then/split/1/connection',
      '/rules/0/then/split/0/weight',
      '/rules/1/when',
      '/rules/1/then/priority',
      '/default/0',
    ]);
    const malformed = await putRouting({ rules: [], default: ['not-an-id'], extra: 1 });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/default/0',
      '/extra',
    ]);
    expect((await get('/v1/routing')).body).toEqual(before);
  });
});

describe("a link's own connections", () => {
  it('replace routing for that link', async () => {
    const link = await createLink(stack, key.api_key, {
      connections: [b.id],
      metadata: { channel: 'retail' },
    });
    await navigate(link.checkout_url);
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(b.id);
  });

  it("use only enabled connections of the key's account and mode, whatever they name", async () => {
    const link = await createLink(stack, key.api_key, { connections: [live.id, a.id] });
    await navigate(link.checkout_url);
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(a.id);
    const foreign = await createLink(stack, key.api_key, { connections: [live.id] });
    expect((await navigate(foreign.checkout_url)).status).toBe(503);
    const malformed = await stack.request('POST', '/v1/payment-links', {
      key: key.api_key,
      body: { amount: { value: '1', currency: 'EUR' }, connections: ['not-an-id'] },
    });
    expect([malformed.status, malformed.body.errors?.[0]?.pointer]).toEqual([422, '/connections/0']);
  });
});

describe('GET /v1/payment-links/{id}/payments', () => {
  it("lists the link's attempts newest first, as documented, and 404s another tenant's link", async () => {
    const link = await createLink(stack, key.api_key, { connections: [a.id] });
    await navigate(link.checkout_url);
    const response = await get(`/v1/payment-links/${link.id}/payments`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([
      expect.objectContaining({
        object: 'payment',
        connection_id: a.id,
        provider: 'sandbox',
        status: 'pending',
        amount: link.amount,
      }),
    ]);
    expectDocumented('get', '/v1/payment-links/{id}/payments', response);
    const stranger = await stack.issueKey('stranger', 'test');
    expect((await get(`/v1/payment-links/${link.id}/payments`, stranger.api_key)).status).toBe(404);
  });
});
