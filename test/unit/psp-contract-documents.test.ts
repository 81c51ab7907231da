import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseYaml, trim } from '../contracts/trim.ts';
import { loadPspContract } from '../support/psp-contract.ts';

/**
 * What the contract machinery (test/contracts/trim.ts, test/support/psp-contract.ts) makes of the PSP documents
 * as they are published (docs/testing.md#psp-contract-tests): OpenAPI 3.0's `nullable` beside a `$ref` and its
 * boolean `exclusiveMinimum`, a `$ref` the document never defines, notification bodies that no operation reaches,
 * errors the document does not declare per operation or declares by range (`4XX`).
 */
const money = { type: 'object', properties: { amount: { type: 'integer' }, currency: { type: 'string' } } };

/** An OpenAPI document in the shape a PSP publishes, with one operation. */
function document(openapi: string) {
  return {
    openapi,
    info: { title: 'Acme', version: '1' },
    paths: {
      '/v2/things': {
        post: {
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThing' } } },
          },
          responses: {
            '200': {
              description: 'Success',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        CreateThing: {
          type: 'object',
          properties: {
            price: { $ref: '#/components/schemas/Money', nullable: true },
            note: { type: 'string', nullable: true, maxLength: 5 },
          },
        },
        Thing: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string' }, option: { $ref: '#/components/schemas/Option' } },
        },
        Option: { type: 'object', properties: { toggle: { $ref: '#/components/schemas/Toggle' } } },
        Money: money,
        Error: {
          type: 'object',
          required: ['category', 'code'],
          properties: { category: { type: 'string' }, code: { type: 'string' } },
        },
        ThingUpdatedEvent: {
          type: 'object',
          properties: { type: { type: 'string' }, data: { $ref: '#/components/schemas/EventData' } },
        },
        EventData: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        Unused: { type: 'object' },
      },
    },
  };
}

const contractOf = (value: Record<string, unknown>, options: Parameters<typeof loadPspContract>[1] = {}) => {
  const file = join(mkdtempSync(join(tmpdir(), 'psp-contract-')), 'acme.trimmed.json');
  writeFileSync(file, JSON.stringify(value));
  return loadPspContract(pathToFileURL(file), options);
};

const post = (body: unknown) => ({ method: 'POST', path: '/v2/things', body });

describe('the trim of a published document', () => {
  it('refuses a $ref the document never defines, unless the PSP names it among its undefined schemas', () => {
    const published = document('3.0.0') as unknown as Parameters<typeof trim>[0];
    expect(() => trim(published, { '/v2/things': ['post'] }, 'acme')).toThrow(
      'Unresolvable $ref #/components/schemas/Toggle',
    );
    const trimmed = trim(published, { '/v2/things': ['post'] }, 'acme', { undefinedSchemas: ['Toggle'] });
    expect((trimmed.components as Record<string, Record<string, unknown>>).schemas?.Toggle).toEqual({});
  });

  it('refuses to define as undefined a schema the document defines', () => {
    const published = document('3.0.0') as unknown as Parameters<typeof trim>[0];
    expect(() =>
      trim(published, { '/v2/things': ['post'] }, 'acme', { undefinedSchemas: ['Toggle', 'Money'] }),
    ).toThrow('The document defines Money');
  });

  it('keeps the components named in keep, with what they reach, and drops the others no operation reaches', () => {
    const published = document('3.0.0') as unknown as Parameters<typeof trim>[0];
    const options = { undefinedSchemas: ['Toggle'] };
    const without = trim(published, { '/v2/things': ['post'] }, 'acme', options);
    const schemas = (trimmed: typeof without) =>
      Object.keys((trimmed.components as Record<string, object>).schemas ?? {});
    expect(schemas(without)).not.toContain('ThingUpdatedEvent');
    const kept = trim(published, { '/v2/things': ['post'] }, 'acme', {
      ...options,
      keep: ['ThingUpdatedEvent'],
    });
    expect(schemas(kept)).toEqual(expect.arrayContaining(['ThingUpdatedEvent', 'EventData']));
    expect(schemas(kept)).not.toContain('Unused');
    expect(() => trim(published, { '/v2/things': ['post'] }, 'acme', { keep: ['Missing'] })).toThrow(
      'Unresolvable $ref #/components/schemas/Missing',
    );
  });
});

describe('a trimmed OpenAPI 3.0 document as the judge of a fake', () => {
  const trimmed = () => {
    const published = document('3.0.0') as unknown as Parameters<typeof trim>[0];
    return trim(published, { '/v2/things': ['post'] }, 'acme', {
      undefinedSchemas: ['Toggle'],
      keep: ['ThingUpdatedEvent', 'Error'],
    });
  };

  it('reads nullable beside a $ref as the null it allows (ajv refuses to compile it as it is)', () => {
    const contract = contractOf(trimmed());
    expect(contract.checkRequest(post({ price: null, note: null }))).toEqual([]);
    expect(contract.checkRequest(post({ price: { amount: 100, currency: 'USD' } }))).toEqual([]);
    expect(contract.checkRequest(post({ price: { amount: 'much' } }))).toEqual([
      'request body/price/amount must be integer',
      'request body/price must be null',
      'request body/price must match a schema in anyOf',
    ]);
    expect(contract.checkRequest(post({ note: 'too long' }))).toEqual([
      'request body/note must NOT have more than 5 characters',
    ]);
  });

  it('keeps nullable as an ordinary field name under properties', () => {
    const published = trimmed();
    const schemas = (published.components as Record<string, Record<string, Record<string, unknown>>>).schemas;
    (schemas as Record<string, unknown>).CreateThing = {
      type: 'object',
      properties: { nullable: { type: 'boolean' } },
    };
    const contract = contractOf(published);
    expect(contract.checkRequest(post({ nullable: true }))).toEqual([]);
    expect(contract.checkRequest(post({ nullable: 'yes' }))).toEqual([
      'request body/nullable must be boolean',
    ]);
  });

  it('judges error answers the document does not declare by undeclaredErrors, and refuses them without it', () => {
    const answer = (response: unknown) => ({ ...post({}), status: 400, response });
    const errors = {
      type: 'object',
      required: ['errors'],
      properties: { errors: { type: 'array', items: { $ref: '#/components/schemas/Error' } } },
    };
    expect(contractOf(trimmed()).checkResponse(answer({ errors: [] }))).toEqual([
      'POST /v2/things documents no 400 answer',
    ]);
    const contract = contractOf(trimmed(), { undeclaredErrors: errors });
    expect(
      contract.checkResponse(
        answer({ errors: [{ category: 'INVALID_REQUEST_ERROR', code: 'BAD_REQUEST' }] }),
      ),
    ).toEqual([]);
    expect(contract.checkResponse(answer({ errors: [{ code: 'BAD_REQUEST' }] }))).toEqual([
      "400 answer/errors/0 must have required property 'category'",
    ]);
    expect(contract.checkResponse({ ...post({}), status: 200, response: {} })).toEqual([
      "200 answer must have required property 'id'",
    ]);
  });

  it('judges an answer by its status range (4XX, 5XX) where the exact status is not declared', () => {
    const published = trimmed();
    const responses = (
      published.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>
    )['/v2/things']?.post?.responses as Record<string, unknown>;
    const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    responses['4XX'] = error;
    responses['5XX'] = error;
    const contract = contractOf(published);
    const answer = (status: number, response: unknown) => ({ ...post({}), status, response });
    expect(contract.checkResponse(answer(422, { category: 'c', code: 'INVALID' }))).toEqual([]);
    expect(contract.checkResponse(answer(503, { code: 'DOWN' }))).toEqual([
      "503 answer must have required property 'category'",
    ]);
    expect(contract.checkResponse(answer(200, { id: 't_1' }))).toEqual([]);
    expect(contract.checkResponse(answer(302, undefined))).toEqual([
      'POST /v2/things documents no 302 answer',
    ]);
  });

  it('reads OpenAPI 3.0’s boolean exclusiveMinimum as the bound JSON Schema takes (ajv refuses it as it is)', () => {
    const published = trimmed();
    const schemas = (published.components as Record<string, Record<string, unknown>>).schemas as Record<
      string,
      unknown
    >;
    schemas.CreateThing = {
      type: 'object',
      properties: {
        amount: { type: 'number', minimum: 0, exclusiveMinimum: true },
        count: { type: 'integer', minimum: 1, exclusiveMinimum: false },
      },
    };
    const contract = contractOf(published);
    expect(contract.checkRequest(post({ amount: 0.5, count: 1 }))).toEqual([]);
    expect(contract.checkRequest(post({ amount: 0, count: 0 }))).toEqual([
      'request body/amount must be > 0',
      'request body/count must be >= 1',
    ]);
  });

  it('judges a path that a literal template and a parameter both match by the literal one, in any order', () => {
    const answer = (properties: Record<string, unknown>, required: string[]) => ({
      responses: {
        '200': {
          content: { 'application/json': { schema: { type: 'object', required, properties } } },
        },
      },
    });
    const search = answer({ results: { type: 'array' } }, ['results']);
    const one = answer({ id: { type: 'string' } }, ['id']);
    const contract = contractOf({
      ...trimmed(),
      paths: { '/v2/things/{id}': { get: one }, '/v2/things/search': { get: search } },
    });
    const get = (path: string, response: unknown) => ({
      method: 'GET',
      path,
      body: undefined,
      status: 200,
      response,
    });
    expect(contract.checkResponse(get('/v2/things/search', { results: [] }))).toEqual([]);
    expect(contract.checkResponse(get('/v2/things/t_1', { id: 't_1' }))).toEqual([]);
    expect(contract.checkResponse(get('/v2/things/search', { id: 'search' }))).toEqual([
      "200 answer must have required property 'results'",
    ]);
  });

  it('judges a value by a component the trim kept (a notification body)', () => {
    const contract = contractOf(trimmed());
    expect(contract.checkSchema('ThingUpdatedEvent', { type: 'thing.updated', data: { id: 't_1' } })).toEqual(
      [],
    );
    expect(contract.checkSchema('ThingUpdatedEvent', { data: {} }, 'notification')).toEqual([
      "notification/data must have required property 'id'",
    ]);
    expect(contract.checkSchema('Missing', {})).toEqual(['the document has no schema Missing']);
  });
});

describe('a document that declares its request bodies among its components', () => {
  const published = () => {
    const value = document('3.0.0');
    const operation = value.paths['/v2/things'].post as Record<string, unknown>;
    operation.requestBody = { $ref: '#/components/requestBodies/CreateThing' };
    const components = value.components as Record<string, unknown>;
    components.requestBodies = {
      CreateThing: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThing' } } },
      },
    };
    return trim(value as unknown as Parameters<typeof trim>[0], { '/v2/things': ['post'] }, 'acme', {
      undefinedSchemas: ['Toggle'],
    });
  };

  it('judges a request by the body its $ref names, required as it says', () => {
    const contract = contractOf(published());
    expect(contract.checkRequest(post({ note: 'short' }))).toEqual([]);
    expect(contract.checkRequest(post({ note: 'too long' }))).toEqual([
      'request body/note must NOT have more than 5 characters',
    ]);
    expect(contract.checkRequest(post({ colour: 'red' }))).toEqual([
      'request body has the unknown field colour',
    ]);
    expect(contract.checkRequest(post(undefined))).toEqual(['request body must be object']);
  });

  it('names a request body $ref the document does not define', () => {
    const value = published() as unknown as { components: Record<string, unknown> };
    delete value.components.requestBodies;
    expect(() => contractOf(value).checkRequest(post({}))).toThrow(
      'POST /v2/things: unresolvable request body #/components/requestBodies/CreateThing',
    );
  });
});

describe('a YAML document', () => {
  it('keeps an unquoted date a string, as JSON has it (the trim would write a Date as {})', async () => {
    const parsed = await parseYaml(
      'info:\n  version: 2025-01-01\nparameters:\n  - schema:\n      type: string\n      default: 2025-01-01\n',
    );
    expect(parsed).toEqual({
      info: { version: '2025-01-01' },
      parameters: [{ schema: { type: 'string', default: '2025-01-01' } }],
    });
  });
});

describe('a loaded document', () => {
  it('is loaded once per worker for the same file and options, again for other options', () => {
    const file = pathToFileURL(join(mkdtempSync(join(tmpdir(), 'psp-contract-')), 'acme.trimmed.json'));
    writeFileSync(file, JSON.stringify(document('3.0.0')));
    const formats = ['currency'];
    const first = loadPspContract(file, { formats });
    expect(loadPspContract(file, { formats: ['currency'] })).toBe(first);
    expect(loadPspContract(file, { formats: ['unix-time'] })).not.toBe(first);
    // A function option is told apart by identity: the same source may close over other values.
    const entity = (name: string) => name.startsWith('entity-');
    expect(loadPspContract(file, { answerOnlyRequired: entity })).toBe(
      loadPspContract(file, { answerOnlyRequired: entity }),
    );
    expect(loadPspContract(file, { answerOnlyRequired: (name) => name.startsWith('entity-') })).not.toBe(
      loadPspContract(file, { answerOnlyRequired: entity }),
    );
    expect(first.checkRequest(post({ amount: 'x' }))).not.toEqual([]);
  });
});
