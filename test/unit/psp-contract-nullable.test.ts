import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadPspContract, openApi30Nullable } from '../support/psp-contract.ts';

/** An OpenAPI 3.0 document that writes `nullable` as Paystack's and Square's do: typed, and beside a `$ref`. */
const document = {
  openapi: '3.0.1',
  paths: {
    '/things': {
      post: {
        requestBody: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['count', 'owner', 'nullable'],
        properties: {
          count: { type: 'integer', nullable: true },
          owner: { nullable: true, allOf: [{ $ref: '#/components/schemas/Owner' }] },
          nullable: { type: 'string', nullable: false },
        },
      },
      Owner: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
    },
  },
};

const contractOf = (content: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'contract-')), 'nullable.trimmed.json');
  writeFileSync(file, JSON.stringify(content));
  return loadPspContract(pathToFileURL(file));
};
const post = (body: unknown) => ({ method: 'POST', path: '/things', body });

describe('OpenAPI 3.0 `nullable` in a PSP contract', () => {
  it('compiles `nullable` without a `type`, and takes null where the document says nullable', () => {
    const contract = contractOf(document);
    expect(contract.checkRequest(post({ count: null, owner: null, nullable: 'x' }))).toEqual([]);
    expect(contract.checkRequest(post({ count: 2, owner: { id: 1 }, nullable: 'x' }))).toEqual([]);
  });

  it('still refuses null where the document does not say nullable, and a wrong value beside null', () => {
    const contract = contractOf(document);
    expect(contract.checkRequest(post({ count: 'two', owner: { id: 1 }, nullable: 'x' })).join()).toMatch(
      /count/,
    );
    expect(contract.checkRequest(post({ count: 1, owner: {}, nullable: 'x' })).join()).toMatch(/owner/);
    expect(contract.checkRequest(post({ count: 1, owner: null, nullable: null })).join()).toMatch(/nullable/);
  });

  it('reads a property named `nullable` as a field, not as the keyword', () => {
    const rewritten = openApi30Nullable(document) as typeof document;
    expect(rewritten.components.schemas.Thing.properties.nullable).toEqual({ type: 'string' });
    expect(rewritten.components.schemas.Thing.properties.count).toEqual({ type: ['integer', 'null'] });
  });
});
