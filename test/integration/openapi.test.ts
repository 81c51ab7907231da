import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '../../functions/domain/errors.ts';
import { ERROR_CODES } from '../../functions/http/api/response-schemas.ts';
import { type ErrorCode, PROBLEM_TYPES } from '../../functions/http/problem-types.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { openApiDocument } from '../../lib/openapi/document.ts';
import { operations } from '../../lib/openapi/operations.ts';
import { renderApiReference } from '../../lib/openapi/reference.ts';
import { SERVED_DOCUMENT_FILE, servedDocumentModule } from '../../lib/openapi/served-document.ts';
import { routes } from '../../lib/routes.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestResponse, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;
const docs = join(import.meta.dirname, '..', '..', 'docs');
const document = openApiDocument();

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

describe('the OpenAPI document', () => {
  it('is current in docs/openapi.json, docs/api.md and the module get-openapi serves (run `npm run openapi` after changing the API)', () => {
    expect(JSON.parse(readFileSync(join(docs, 'openapi.json'), 'utf8'))).toEqual(document);
    expect(readFileSync(join(docs, 'api.md'), 'utf8')).toBe(renderApiReference());
    expect(readFileSync(SERVED_DOCUMENT_FILE, 'utf8')).toBe(servedDocumentModule());
  });

  it('documents exactly the /v1 routes of the route table (checkout and PSP pages are not the merchant API)', () => {
    const documented = operations
      .map((operation) => `${operation.method.toUpperCase()} ${operation.path}`)
      .sort();
    const merchantRoutes = routes.filter((route) => route.path.startsWith('/v1/'));
    expect(documented).toEqual(merchantRoutes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('lists every code an error class carries, with the status the table of problem types gives it', () => {
    // Prepare
    const classes = Object.values(errors).filter(
      (value): value is typeof value & { code: ErrorCode } => typeof value === 'function' && 'code' in value,
    );
    const schemas = document.components?.schemas as Record<
      string,
      { properties: { code: { enum: string[] } } }
    >;
    // Act
    const documented = schemas.Problem?.properties.code.enum;
    // Assess
    expect(classes.length).toBeGreaterThan(10);
    for (const type of classes) {
      expect(documented).toContain(type.code);
      expect(ERROR_CODES[type.code].status).toBe(PROBLEM_TYPES[type.code].status);
    }
  });

  it('is served at GET /v1/openapi.json without a key', async () => {
    const response = await stack.request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(document);
    expectDocumented('get', '/v1/openapi.json', response);
  });

  it('describes the real responses of every operation, successes and problems', async () => {
    const createBody = {
      amount: { value: '10.00', currency: 'EUR' },
      description: 'd',
      redirect_url: 'https://shop.example/r',
      metadata: { a: 'b' },
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const createWithKey = (body: unknown) =>
      stack.request('POST', '/v1/payment-links', {
        key: acme.api_key,
        headers: { 'idempotency-key': 'doc-1' },
        body,
      });
    const created = await createWithKey(createBody);
    expect(created.status).toBe(201);
    const id = created.body.id;
    const checks: [string, string, TestResponse][] = [
      ['post', '/v1/payment-links', created],
      ['post', '/v1/payment-links', await createWithKey(createBody)],
      ['post', '/v1/payment-links', await createWithKey({ amount: { value: '1', currency: 'EUR' } })],
      [
        'post',
        '/v1/payment-links',
        await stack.request('POST', '/v1/payment-links', {
          key: acme.api_key,
          body: { amount: { value: '1.001', currency: 'EUR' } },
        }),
      ],
      [
        'post',
        '/v1/payment-links',
        await stack.request('POST', '/v1/payment-links', {
          key: acme.api_key,
          rawBody: '{',
          headers: { 'content-type': 'application/json' },
        }),
      ],
      ['post', '/v1/payment-links', await stack.request('POST', '/v1/payment-links', { rawBody: '{}' })],
      [
        'post',
        '/v1/payment-links',
        await stack.request('POST', '/v1/payment-links', {
          key: acme.api_key,
          rawBody: 'x',
          headers: { 'content-type': 'text/plain' },
        }),
      ],
      [
        'get',
        '/v1/payment-links',
        await stack.request('GET', '/v1/payment-links?limit=1', { key: acme.api_key }),
      ],
      [
        'get',
        '/v1/payment-links',
        await stack.request('GET', '/v1/payment-links?limit=0', { key: acme.api_key }),
      ],
      [
        'get',
        '/v1/payment-links/{id}',
        await stack.request('GET', `/v1/payment-links/${id}`, { key: acme.api_key }),
      ],
      [
        'get',
        '/v1/payment-links/{id}',
        await stack.request('GET', '/v1/payment-links/pl_nope', { key: acme.api_key }),
      ],
      [
        'post',
        '/v1/payment-links/{id}/cancel',
        await stack.request('POST', `/v1/payment-links/${id}/cancel`, { key: acme.api_key }),
      ],
      [
        'post',
        '/v1/payment-links/{id}/cancel',
        await stack.request('POST', '/v1/payment-links/pl_nope/cancel', { key: acme.api_key }),
      ],
    ];
    const events = await stack.request('GET', `/v1/payment-links/${id}/events`, { key: acme.api_key });
    const eventId = events.body.data[0]?.id;
    checks.push(
      ['get', '/v1/payment-links/{id}/events', events],
      [
        'post',
        '/v1/events/{id}/redeliver',
        await stack.request('POST', `/v1/events/${eventId}/redeliver`, { key: acme.api_key }),
      ],
      [
        'post',
        '/v1/events/{id}/redeliver',
        await stack.request('POST', '/v1/events/evt_nope/redeliver', { key: acme.api_key }),
      ],
    );
    const statuses = checks.map(([, , response]) => response.status);
    expect(statuses).toEqual([
      201, 201, 422, 422, 400, 401, 415, 200, 422, 200, 404, 200, 404, 200, 202, 404,
    ]);
    expect(events.body.data).toHaveLength(1);
    for (const [method, path, response] of checks) expectDocumented(method, path, response);
  });
});
