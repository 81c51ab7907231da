import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '../../functions/domain/errors.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { routes } from '../../lib/routes.ts';
import { openApiDocument } from '../../openapi/document.ts';
import { operations } from '../../openapi/operations.ts';
import { renderApiReference } from '../../openapi/reference.ts';
import { ERROR_CODES, type ErrorCode } from '../../openapi/response-schemas.ts';
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

/** Validates a real response against the documented schema of (method, path, status). */
function expectDocumented(method: string, path: string, response: TestResponse) {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  const operation = paths[path]?.[method];
  const documented = operation?.responses[String(response.status)] as
    | { content: Record<string, { schema: unknown }> }
    | undefined;
  expect(documented, `${method.toUpperCase()} ${path} documents ${response.status}`).toBeDefined();
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] as string;
  const schema = documented?.content[mediaType]?.schema;
  expect(schema, `${response.status} is documented as ${mediaType}`).toBeDefined();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...document, $id: 'openapi' }, 'openapi');
  const validate = ajv.compile({
    $ref: `openapi#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1').replaceAll('{', '%7B').replaceAll('}', '%7D')}/${method}/responses/${response.status}/content/${mediaType.replace('/', '~1')}/schema`,
  });
  const valid = validate(response.body);
  expect(validate.errors ?? [], JSON.stringify(response.body)).toEqual([]);
  expect(valid).toBe(true);
  expectDocumentedHeaders(ajv, (documented as { headers?: Record<string, Header> }).headers ?? {}, response);
}

type Header = { $ref?: string; required?: boolean; schema?: { type?: string } };

/**
 * Every header the document declares for the response is sent when required and matches its schema when sent;
 * every rate-limit header sent is declared.
 */
function expectDocumentedHeaders(ajv: Ajv2020, declared: Record<string, Header>, response: TestResponse) {
  const headerComponents = (document.components?.headers ?? {}) as Record<string, Header>;
  for (const [name, declaration] of Object.entries(declared)) {
    const header = declaration.$ref
      ? headerComponents[declaration.$ref.split('/').pop() as string]
      : declaration;
    const sent = response.headers.get(name);
    if (header?.required) expect(sent, `${response.status} sends ${name}`).not.toBeNull();
    if (sent === null || !header?.schema) continue;
    const value = header.schema.type === 'integer' ? Number(sent) : sent;
    expect(
      ajv.validate(header.schema, value),
      `${name}: ${sent} matches ${JSON.stringify(header.schema)}`,
    ).toBe(true);
  }
  const sentRateLimitHeaders = [...response.headers.keys()].filter((name) =>
    /^(ratelimit-|retry-after)/.test(name),
  );
  const declaredNames = Object.keys(declared).map((name) => name.toLowerCase());
  expect(sentRateLimitHeaders.filter((name) => !declaredNames.includes(name))).toEqual([]);
}

describe('the OpenAPI document', () => {
  it('is current in docs/openapi.json and docs/api.md (run `npm run openapi` after changing the API)', () => {
    expect(JSON.parse(readFileSync(join(docs, 'openapi.json'), 'utf8'))).toEqual(document);
    expect(readFileSync(join(docs, 'api.md'), 'utf8')).toBe(renderApiReference());
  });

  it('documents exactly the /v1 routes of the route table (checkout and PSP pages are not the merchant API)', () => {
    const documented = operations
      .map((operation) => `${operation.method.toUpperCase()} ${operation.path}`)
      .sort();
    const merchantRoutes = routes.filter((route) => route.path.startsWith('/v1/'));
    expect(documented).toEqual(merchantRoutes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('lists every code an error class carries, with the status of that class', () => {
    // Prepare
    const classes = Object.values(errors).filter(
      (value): value is typeof value & { code: string; status: number } =>
        typeof value === 'function' && 'code' in value && 'status' in value,
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
      expect(ERROR_CODES[type.code as ErrorCode].status).toBe(type.status);
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
