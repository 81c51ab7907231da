import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startTestStack, type TestResponse, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

const validBody = {
  amount: { value: '10.50', currency: 'EUR' },
  description: 'Order 1001',
  redirect_url: 'https://shop.example.com/thanks',
  webhook_url: 'https://shop.example.com/hooks',
  metadata: { order_id: '1001' },
  expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
};

function expectProblem(response: TestResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({ status, code, type: `/problems/${code}` });
  expect(typeof response.body.title).toBe('string');
  expect(typeof response.body.request_id).toBe('string');
}

describe('POST /v1/payment-links', () => {
  it('creates an open link and returns the whole resource with 201', async () => {
    const response = await stack.request('POST', '/v1/payment-links', { key: acme.api_key, body: validBody });
    expect(response.status).toBe(201);
    const link = response.body;
    expect(link.id).toMatch(/^pl_[0-9A-Za-z]{22,}$/);
    expect(link).toMatchObject({
      object: 'payment_link',
      mode: 'test',
      status: 'open',
      amount: { value: '10.50', currency: 'EUR' },
      description: 'Order 1001',
      redirect_url: validBody.redirect_url,
      webhook_url: validBody.webhook_url,
      metadata: { order_id: '1001' },
      checkout_url: `${stack.checkoutBase}/${link.id}`,
      expires_at: validBody.expires_at,
      paid_at: null,
      canceled_at: null,
      payment: null,
    });
    expect(Date.parse(link.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(response.headers.get('location')).toBe(`/v1/payment-links/${link.id}`);
  });

  it('echoes the amount value byte for byte', async () => {
    for (const value of ['10', '10.5', '0.01']) {
      const response = await stack.request('POST', '/v1/payment-links', {
        key: acme.api_key,
        body: { amount: { value, currency: 'EUR' } },
      });
      expect(response.body.amount.value).toBe(value);
    }
  });

  it('answers 422 with one JSON pointer per bad field', async () => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: { amount: { value: '10.505', currency: 'EUR' }, redirectUrl: 'https://x.example' },
    });
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/amount/value',
      '/redirectUrl',
    ]);
  });

  it('answers 400 to malformed JSON', async () => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      rawBody: '{"amount": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'invalid_json');
  });

  it('answers 415 to a body that is not declared as JSON', async () => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      rawBody: JSON.stringify(validBody),
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('accepts application/json with a charset parameter', async () => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      rawBody: JSON.stringify(validBody),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });

  it('answers 413 to a body over 32 KiB', async () => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: { ...validBody, description: 'x'.repeat(33 * 1024) },
    });
    expectProblem(response, 413, 'payload_too_large');
  });

  it('answers 405 with Allow to another method on a known path', async () => {
    const response = await stack.request('DELETE', '/v1/payment-links', { key: acme.api_key });
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('POST, GET');
  });

  it('answers 404 in problem form to an unknown path', async () => {
    expectProblem(await stack.request('GET', '/v2/nothing'), 404, 'not_found');
  });

  it('answers a request target that is no URL at all (raw bytes, no fetch would send it) with a 404', async () => {
    const { port } = new URL(stack.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET //[ HTTP/1.1\r\nHost: local\r\nConnection: close\r\n\r\n'),
      );
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk;
      });
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
    expect(answer).toContain('"code":"not_found"');
  });

  it('keeps serving after a client goes away in the middle of its body', async () => {
    const { port } = new URL(stack.baseUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /v1/payment-links HTTP/1.1\r\nHost: local\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"amount":',
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    expectProblem(await stack.request('GET', '/v2/nothing'), 404, 'not_found');
  });
});

describe('authentication', () => {
  it.each([
    ['no header', undefined],
    ['a malformed key', 'Bearer nope'],
    ['another scheme', `Basic abc`],
  ])('answers 401 with WWW-Authenticate for %s', async (_case, authorization) => {
    const response = await stack.request('POST', '/v1/payment-links', {
      body: validBody,
      headers: authorization ? { authorization } : {},
    });
    expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('answers 401 to a well-formed key that was never issued', async () => {
    const other = await startTestStackKeyLookalike();
    const response = await stack.request('GET', '/v1/payment-links/pl_x', { key: other });
    expectProblem(response, 401, 'unauthorized');
  });

  it('answers 401 to a revoked key once its cache entry lapses', async () => {
    const { apiKeyRepository } = await import('../../functions/dependencies.ts');
    const key = await stack.issueKey('revoked-co', 'test');
    await apiKeyRepository().revoke(key.key_id, new Date());
    const response = await stack.request('GET', '/v1/payment-links/pl_x', { key: key.api_key });
    expectProblem(response, 401, 'unauthorized');
  });
});

/** A key with a valid format and checksum that no repository knows. */
async function startTestStackKeyLookalike(): Promise<string> {
  const { generateApiKey } = await import('../../functions/domain/api-key.ts');
  return generateApiKey('ghost', 'test', new Date()).key;
}

describe('GET /v1/payment-links/{id} and tenancy', () => {
  it('returns the link to its owner', async () => {
    const created = await stack.request('POST', '/v1/payment-links', { key: acme.api_key, body: validBody });
    const read = await stack.request('GET', `/v1/payment-links/${created.body.id}`, { key: acme.api_key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("answers another account's link, the other mode's link and a missing link identically: 404", async () => {
    const created = await stack.request('POST', '/v1/payment-links', { key: acme.api_key, body: validBody });
    const otherAccount = await stack.issueKey('globex', 'test');
    const acmeLive = await stack.issueKey('acme', 'live');
    const responses = await Promise.all([
      stack.request('GET', `/v1/payment-links/${created.body.id}`, { key: otherAccount.api_key }),
      stack.request('GET', `/v1/payment-links/${created.body.id}`, { key: acmeLive.api_key }),
      stack.request('GET', '/v1/payment-links/pl_doesnotexist0000000000', { key: acme.api_key }),
    ]);
    for (const response of responses) expectProblem(response, 404, 'not_found');
    const shape = (body: Record<string, unknown>) => ({ ...body, request_id: undefined, detail: undefined });
    expect(shape(responses[0]?.body)).toEqual(shape(responses[2]?.body));
    expect(shape(responses[1]?.body)).toEqual(shape(responses[2]?.body));
  });

  it('gives live keys live links with live webhook secrets of their own', async () => {
    const live = await stack.issueKey('acme', 'live');
    expect(live.webhook_secret).not.toBe(acme.webhook_secret);
    const again = await stack.issueKey('acme', 'test');
    expect(again.webhook_secret).toBe(acme.webhook_secret);
    const response = await stack.request('POST', '/v1/payment-links', {
      key: live.api_key,
      body: { amount: { value: '5', currency: 'USD' }, redirect_url: 'https://shop.example.com' },
    });
    expect(response.body.mode).toBe('live');
  });

  it('refuses http URLs for live links', async () => {
    const live = await stack.issueKey('acme', 'live');
    const response = await stack.request('POST', '/v1/payment-links', {
      key: live.api_key,
      body: { amount: { value: '5', currency: 'USD' }, redirect_url: 'http://shop.example.com' },
    });
    expectProblem(response, 422, 'validation_failed');
  });

  it('refuses private, loopback, link-local and metadata targets for live links on the local stack too', async () => {
    const live = await stack.issueKey('acme', 'live');
    const testKey = await stack.issueKey('acme', 'test');
    for (const target of [
      'https://127.0.0.1/hooks',
      'https://10.1.2.3/hooks',
      'https://[::1]/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/',
    ]) {
      const body = { amount: { value: '5', currency: 'USD' }, redirect_url: target, webhook_url: target };
      const refused = await stack.request('POST', '/v1/payment-links', { key: live.api_key, body });
      expectProblem(refused, 422, 'validation_failed');
      expect(refused.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual([
        '/redirect_url',
        '/webhook_url',
      ]);
      // The local stack allows private targets, for test-mode links only.
      const accepted = await stack.request('POST', '/v1/payment-links', { key: testKey.api_key, body });
      expect(accepted.status).toBe(201);
    }
  });

  it('refuses URLs that carry characters a URL cannot hold, such as CR/LF, instead of storing them raw', async () => {
    for (const redirect_url of [
      'https://shop.example.com/thanks\r\nSet-Cookie: a=b',
      'https://shop.example.com/th\tanks',
      ' https://shop.example.com/thanks',
      'https://shop.example.com\\@evil.example/',
      'https://shop.example.com/caf\u00e9',
    ]) {
      const response = await stack.request('POST', '/v1/payment-links', {
        key: acme.api_key,
        body: { amount: { value: '5', currency: 'EUR' }, redirect_url },
      });
      expectProblem(response, 422, 'validation_failed');
      expect(response.body.errors[0].pointer).toBe('/redirect_url');
    }
  });

  it.each(['XDR', 'XSU', 'XUA', 'XAU', 'XTS', 'XXX'])(
    'refuses %s, in which no buyer can pay',
    async (currency) => {
      const response = await stack.request('POST', '/v1/payment-links', {
        key: acme.api_key,
        body: { amount: { value: '5', currency } },
      });
      expectProblem(response, 422, 'validation_failed');
      expect(response.body.errors[0].pointer).toBe('/amount/currency');
    },
  );
});
