import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * A PSP's own OpenAPI document, trimmed to the operations we call (test/contracts/trim.ts), as the judge of
 * what the fakes receive and answer: a request the PSP would refuse, or an answer the PSP could not give, is a
 * violation (docs/testing.md#psp-contract-tests).
 */
export interface PspContract {
  /** What is wrong with a request, by the document: [] when it conforms. */
  checkRequest(exchange: Pick<ContractExchange, 'method' | 'path' | 'body'>): string[];
  /** What is wrong with an answer to `exchange`'s request, by the document: [] when it conforms. */
  checkResponse(exchange: ContractExchange): string[];
}

/** One trimmed document as a `PspContract`, which also judges what it describes outside its operations. */
export interface PspDocument extends PspContract {
  /**
   * What is wrong with `value` as the document's component schema `name`: [] when it conforms. For what the
   * document describes outside its operations, e.g. a notification's body (kept by its trim's `keep`).
   */
  checkSchema(name: string, value: unknown, what?: string): string[];
}

/** One request a fake received and the answer it gave. */
export interface ContractExchange {
  method: string;
  /** As the document spells it, without the API's base path (`/v72`). */
  path: string;
  body: unknown;
  status: number;
  response: unknown;
}

type Schema = Record<string, unknown>;
interface RequestBody {
  required?: boolean;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  requestBody?: RequestBody & { $ref?: string };
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: Schema }> }>;
}

/**
 * A document's `pattern` as ajv compiles it (with the `u` flag), or without that flag when only then is it a
 * regular expression: an email pattern may escape `{|}` in a class, which `u` forbids and ECMA-262 otherwise
 * allows.
 */
const lenientRegExp = Object.assign(
  (pattern: string, flags?: string) => {
    try {
      return new RegExp(pattern, flags);
    } catch {
      return new RegExp(pattern, flags?.replace('u', ''));
    }
  },
  { code: 'lenientRegExp' },
);

const pointerPart = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1');

/** How a PSP's document is read: each PSP's fake says what its document needs. */
export interface ContractOptions {
  /** Its requests are form-encoded: every value is a string (`amount=500` is the integer 500), coerced. */
  formEncoded?: boolean;
  /**
   * Its document is not the judge of which fields a request may carry (a PSP that ignores fields it does not know,
   * whose public document predates fields its API takes): its fake checks those itself.
   */
  openRequestBodies?: boolean;
  /** Formats the document names that JSON Schema does not define, beyond the usual ones: their `type` still validates. */
  formats?: readonly string[];
  /**
   * Schemas that describe a resource for both directions, whose `required` lists are the answer's: not applied to
   * requests (the request's own schema adds what a request must have).
   */
  answerOnlyRequired?: (schemaName: string) => boolean;
  /**
   * The schema of the error answers the document does not declare per operation (a document that lists only each
   * operation's `200`, its errors one body for every operation): a 4xx or 5xx answer whose status an operation
   * does not list is judged by it. Its local `$ref`s name the document's components. Absent: such an answer is a
   * violation.
   */
  undeclaredErrors?: Schema;
}

/**
 * The documents loaded in this worker, by URL and options: a fake starts in every file (and every describe) that
 * uses it, and compiling its document's schemas again each time was most of the conformance files' CPU (ajv 3.0 of
 * 8.8 busy CPU-s in `psp-conformance-mandates` and `-refunds`, docs/testing.md#cpu-per-file). A loaded document
 * keeps no state but its compiled validators; a document file does not change during a run.
 */
const loaded = new Map<string, PspDocument>();
/** An option that is a function is told apart by its identity: the same source may close over other values. */
const functionIds = new WeakMap<object, number>();
let functionsSeen = 0;

function cacheKey(url: URL, contract: ContractOptions): string {
  const options = JSON.stringify(contract, (_name, value) => {
    if (typeof value !== 'function') return value;
    if (!functionIds.has(value)) functionIds.set(value, functionsSeen++);
    return `function ${functionIds.get(value)}`;
  });
  return `${url.href}\n${options}`;
}

/** A PSP folder's trimmed document (`test/contract/<name>.trimmed.json`, as a URL). */
export function loadPspContract(url: URL, contract: ContractOptions = {}): PspDocument {
  const key = cacheKey(url, contract);
  let document = loaded.get(key);
  if (!document) {
    document = documentOf(url, contract);
    loaded.set(key, document);
  }
  return document;
}

function documentOf(url: URL, contract: ContractOptions): PspDocument {
  const document = JSON.parse(readFileSync(url, 'utf8')) as {
    openapi?: string;
    paths: Record<string, Record<string, Operation>>;
    components: Record<string, Record<string, Schema>>;
  };
  const validators = (view: typeof document, options: { coerceTypes?: boolean } = {}) => {
    const ajv = new Ajv2020({
      strict: false,
      allErrors: true,
      validateFormats: true,
      code: { regExp: lenientRegExp },
      ...options,
    });
    addFormats.default(ajv);
    // Formats the documents name that JSON Schema does not define: their `type` still validates.
    const formats = ['int32', 'int64', 'float', 'double', 'decimal', 'binary', 'byte', 'password'];
    for (const format of [...formats, 'currency', 'unix-time', ...(contract.formats ?? [])]) {
      if (!ajv.formats[format]) ajv.addFormat(format, true);
    }
    ajv.addSchema({ ...asJsonSchema(view), $id: 'psp' }, 'psp');
    const compiled = new Map<string, ValidateFunction>();
    /** The validator of the schema at `pointer` in the document, or of a schema whose local `$ref`s are its. */
    return (pointer: string | undefined, schema?: Schema) => {
      if (pointer === undefined) {
        return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"psp#/')));
      }
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: `psp#${pointer}` });
        compiled.set(pointer, validate);
      }
      return validate;
    };
  };
  const validator = validators(document);
  const undeclaredErrors = contract.undeclaredErrors && validator(undefined, contract.undeclaredErrors);
  const requestValidator = validators(requestView(contract, document), {
    coerceTypes: contract.formEncoded === true,
  });
  // A path that both a literal template and a parameter's match (`/v1/payments/search`, `/v1/payments/{id}`) is
  // the literal one's, whatever the document's order: templates with more literal segments are tried first.
  const literalSegments = (template: string) =>
    template.split('/').filter((segment) => segment !== '' && !segment.includes('{')).length;
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => literalSegments(b.template) - literalSegments(a.template));
  const operationOf = (method: string, path: string) => {
    const template = templates.find(({ pattern }) => pattern.test(path))?.template;
    const operation = template ? document.paths[template]?.[method.toLowerCase()] : undefined;
    return template && operation ? { template, operation } : undefined;
  };
  const errorsOf = (validate: ValidateFunction, value: unknown, what: string) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((error) =>
          'additionalProperty' in error.params
            ? `${what}${error.instancePath} has the unknown field ${String(error.params.additionalProperty)}`
            : `${what}${error.instancePath} ${error.message}`,
        );
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    const ref = schema?.$ref;
    if (typeof ref !== 'string') return schema;
    const [, kind, name] = ref.replace(/^#\//, '').split('/');
    return resolve(document.components[kind as string]?.[name as string]);
  };
  /** Fields the document does not know: the PSP refuses them ("unknown fields"), whatever the schema allows. */
  const unknownFields = (value: unknown, schema: Schema | undefined, at: string): string[] => {
    const resolved = resolve(schema);
    if (!resolved || value === null || typeof value !== 'object') return [];
    if (Array.isArray(value)) {
      return value.flatMap((item, index) => unknownFields(item, resolved.items as Schema, `${at}/${index}`));
    }
    const properties = resolved.properties as Record<string, Schema> | undefined;
    if (!properties) return [];
    // `additionalProperties: false` is ajv's to report at this level; the listed fields may nest further.
    const closed = resolved.additionalProperties === false;
    if (resolved.additionalProperties !== undefined && !closed) return [];
    return Object.entries(value).flatMap(([name, field]) =>
      name in properties
        ? unknownFields(field, properties[name], `${at}/${name}`)
        : closed
          ? []
          : [`request body${at} has the unknown field ${name}`],
    );
  };

  /**
   * An operation's request body and where it is in the document: its own, or the one its `$ref` names among
   * `components.requestBodies` (a document may declare each body once there).
   */
  const requestBodyOf = (template: string, method: string, operation: Operation) => {
    const ref = operation.requestBody?.$ref;
    if (ref === undefined) {
      return {
        requestBody: operation.requestBody,
        at: `/paths/${pointerPart(template)}/${method.toLowerCase()}/requestBody`,
      };
    }
    const name = ref.replace(/^#\/components\/requestBodies\//, '');
    const requestBody = document.components.requestBodies?.[name] as RequestBody | undefined;
    if (name === ref || !requestBody)
      throw new Error(`${method} ${template}: unresolvable request body ${ref}`);
    return { requestBody, at: `/components/requestBodies/${pointerPart(name)}` };
  };

  return {
    checkRequest({ method, path, body }) {
      const found = operationOf(method, path);
      if (!found) return [`${method} ${path} is no operation of the document`];
      const { requestBody, at } = requestBodyOf(found.template, method, found.operation);
      const content = requestBody?.content;
      if (!content) return body === undefined || body === '' ? [] : [`${method} ${path} takes no body`];
      // OpenAPI: a request body is optional unless the operation says `required` (a capture may take none).
      if (body === undefined && requestBody?.required !== true) return [];
      const mediaType = Object.keys(content)[0] as string;
      const pointer = `${at}/content/${pointerPart(mediaType)}/schema`;
      return [
        ...errorsOf(requestValidator(pointer), body, 'request body'),
        ...(contract.openRequestBodies ? [] : unknownFields(body, content[mediaType]?.schema, '')),
      ];
    },
    checkResponse({ method, path, status, response }) {
      const found = operationOf(method, path);
      if (!found) return [`${method} ${path} is no operation of the document`];
      // A document kept for requests only (its trim's `requestsOnly`) says nothing of answers.
      if (!found.operation.responses) return [];
      const responses = found.operation.responses;
      // OpenAPI's order: the exact status, then its range (`4XX`, a document's errors by range), then `default`.
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find(
        (candidate) => candidate in responses,
      );
      if (!key && status >= 400 && undeclaredErrors) {
        return errorsOf(undeclaredErrors, response, `${status} answer`);
      }
      if (!key) return [`${method} ${path} documents no ${status} answer`];
      const declared = responses[key];
      const ref = declared?.$ref;
      const base = ref
        ? ref.replace(/^#/, '')
        : `/paths/${pointerPart(found.template)}/${method.toLowerCase()}/responses/${key}`;
      const content = ref
        ? document.components.responses?.[ref.split('/').pop() as string]?.content
        : declared?.content;
      if (!content) return response === undefined ? [] : [`${status} to ${method} ${path} documents no body`];
      const mediaType = Object.keys(content)[0] as string;
      return errorsOf(
        validator(`${base}/content/${pointerPart(mediaType)}/schema`),
        response,
        `${status} answer`,
      );
    },
    checkSchema(name, value, what = name) {
      if (!document.components.schemas?.[name]) return [`the document has no schema ${name}`];
      return errorsOf(validator(`/components/schemas/${pointerPart(name)}`), value, what);
    },
  };
}

/**
 * The document as JSON Schema 2020-12, which ajv compiles: an OpenAPI 3.0 document's `nullable` (which ajv refuses
 * beside a `$ref`, without `type`, even with `strict: false`) rewritten as the `null` it allows:
 * `{type: T, nullable: true}` as `{type: [T, 'null']}`, else `{anyOf: [<the rest>, {type: 'null'}]}`;
 * `nullable: false` dropped; its boolean `exclusiveMinimum` and `exclusiveMaximum` as the numbers JSON Schema takes
 * (`withNumericExclusiveBounds`). A 3.1 document is JSON Schema already, and kept as it is.
 */
function asJsonSchema<T extends { openapi?: unknown }>(document: T): T {
  return String(document.openapi).startsWith('3.0') ? (withoutNullable(document) as T) : document;
}

function withoutNullable(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutNullable(item));
  if (node === null || typeof node !== 'object') return node;
  const rewritten: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) rewritten[key] = withoutNullable(value, key);
  // Under `properties`, `nullable` would be the name of a field, not the keyword.
  if (parentKey === 'properties' || parentKey === 'patternProperties') return rewritten;
  if (!('nullable' in rewritten)) return withNumericExclusiveBounds(rewritten);
  const { nullable, ...rest } = withNumericExclusiveBounds(rewritten);
  if (nullable !== true) return rest;
  if (typeof rest.type === 'string') return { ...rest, type: [rest.type, 'null'] };
  if (Array.isArray(rest.type)) return { ...rest, type: [...rest.type, 'null'] };
  return { anyOf: [rest, { type: 'null' }] };
}

/**
 * OpenAPI 3.0's boolean `exclusiveMinimum` / `exclusiveMaximum` (beside `minimum` / `maximum`) as JSON Schema's
 * number (`{minimum: 0, exclusiveMinimum: true}` is `{exclusiveMinimum: 0}`), which ajv requires; `false` dropped.
 */
function withNumericExclusiveBounds(schema: Record<string, unknown>): Record<string, unknown> {
  let rewritten = schema;
  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof rewritten[exclusive] !== 'boolean') continue;
    const { [exclusive]: isExclusive, ...rest } = rewritten;
    if (isExclusive && rest[bound] !== undefined) {
      const { [bound]: value, ...others } = rest;
      rewritten = { ...others, [exclusive]: value };
    } else rewritten = rest;
  }
  return rewritten;
}

/**
 * A form-encoded body as the object its schema describes: the bracket notation (`line_items[0][quantity]=2`,
 * `expand[]=x`) nests, a numeric or empty bracket makes an array; every value stays a string (the request
 * validator coerces `"2"` to the integer the schema asks for). An empty body is the empty object.
 */
export function decodeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const [head = '', ...rest] = name.split('[');
    const keys = [head, ...rest.map((part) => part.replace(/\]$/, ''))];
    let node: Record<string, unknown> | unknown[] = root;
    keys.forEach((key, index) => {
      const last = index === keys.length - 1;
      const container = node as Record<string, unknown>;
      const slot = key === '' && Array.isArray(node) ? String(node.length) : key;
      if (last) {
        container[slot] = value;
        return;
      }
      const nextIsArray = /^\d*$/.test(keys[index + 1] as string);
      container[slot] ??= nextIsArray ? [] : {};
      node = container[slot] as Record<string, unknown> | unknown[];
    });
  }
  return root;
}

/**
 * The document as it judges requests: without the `required` lists that are the answer's
 * (`answerOnlyRequired`), and by OpenAPI's own rule, a `readOnly` property is never required of a request.
 */
function requestView<T extends { components: Record<string, Record<string, Schema>> }>(
  options: ContractOptions,
  document: T,
): T {
  const view = structuredClone(document);
  for (const [name, schema] of Object.entries(view.components.schemas ?? {})) {
    if (options.answerOnlyRequired?.(name)) delete schema.required;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (Array.isArray(schema.required)) {
      schema.required = schema.required.filter((field: string) => properties[field]?.readOnly !== true);
    }
  }
  return view;
}
