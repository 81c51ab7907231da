import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { openApiDocument } from '../../lib/openapi/document.ts';
import type { TestResponse } from './test-stack.ts';

const document = openApiDocument();

/**
 * One validator holding the document for the worker's files, and each response schema compiled once: a new one
 * per check, the document added and the schema compiled again, cost 25 ms of CPU a check against 0.3
 * (docs/testing.md#cpu-per-file). Nothing changes the document, and a validation keeps no state but its errors.
 */
let documentAjv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorOf(ref: string): { ajv: Ajv2020; validate: ValidateFunction } {
  if (!documentAjv) {
    documentAjv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(documentAjv);
    documentAjv.addSchema({ ...document, $id: 'openapi' }, 'openapi');
  }
  let validate = validators.get(ref);
  if (!validate) {
    validate = documentAjv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return { ajv: documentAjv, validate };
}

/** Validates a real response against the documented schema of (method, path, status). */
export function expectDocumented(method: string, path: string, response: TestResponse) {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  const operation = paths[path]?.[method];
  const documented = operation?.responses[String(response.status)] as
    | { content: Record<string, { schema: unknown }> }
    | undefined;
  expect(documented, `${method.toUpperCase()} ${path} documents ${response.status}`).toBeDefined();
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] as string;
  const schema = documented?.content[mediaType]?.schema;
  expect(schema, `${response.status} is documented as ${mediaType}`).toBeDefined();
  const { ajv, validate } = validatorOf(
    `openapi#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1').replaceAll('{', '%7B').replaceAll('}', '%7D')}/${method}/responses/${response.status}/content/${mediaType.replace('/', '~1')}/schema`,
  );
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
