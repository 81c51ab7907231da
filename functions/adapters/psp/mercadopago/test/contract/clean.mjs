/**
 * Cleans a Mercado Pago reference document (mercadopago/devsite-docs `reference/api/*.yaml`, written for the
 * developer site's renderer, not for validators) into an OpenAPI 3.0 document that test/contracts/trim.ts and the
 * contract's validator can load. Every rewrite is listed here and counted in the report (SOURCE.md says why each is
 * the meaning of the text, not a change of it):
 *
 *  1. `tags: [{$ref: '#/tags/checkout-pro'}]` (refs into the site's own base.yaml) → the names ['checkout-pro'].
 *  2. `required: true` on a property (Swagger 2 style) → the name in its parent object's `required` array; a boolean
 *     `required` on any other schema is dropped (a parameter's boolean `required` is OpenAPI's own, and kept).
 *  3. `format: nullable` (no format) → `nullable: true`.
 *  4. `format: date` → `format: date-time`: those fields (`expiration_date_from`, `expiration_date_to`,
 *     `date_of_expiration`, …) carry ISO 8601 date-times ("2026-01-02T10:30:00.000-03:00"), as their examples show.
 *  5. `type: String` / `Object` / … → lower case; a type that is still none of JSON Schema's is dropped.
 *  6. An enum value that carries its description ("ARS -- Argentine peso.", "1--Params Error.") → the code alone.
 *  7. `x-*-i18n` translations → dropped (the trim drops every `x-*` anyway).
 *  8. The YAML is read with js-yaml's CORE_SCHEMA, so that unquoted dates stay strings.
 *  9. A `200` answer typed as an array whose items are a page (`paging` and `results`, `GET /v1/payments/search`)
 *     → the page itself: the API answers one page object (Mercado Pago's own SDK types it so, `PaymentSearch`
 *     `{paging, results}`), which an array of pages could never be.
 *
 * usage: node clean.mjs <preferences.yaml|payments.yaml> <out.cleaned.json>
 */
import { readFileSync, writeFileSync } from 'node:fs';

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const NAMES = new Set(['properties', 'patternProperties']);
/** Keys under which a value is data, not a schema. */
const DATA = new Set(['example', 'examples', 'default', 'enum', 'const']);

const counts = {};
const count = (what) => {
  counts[what] = (counts[what] ?? 0) + 1;
};
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** 2: the names of the properties marked `required: true`, read before the properties are cleaned. */
function requiredByProperty(node) {
  if (!isObject(node.properties)) return [];
  return Object.entries(node.properties)
    .filter(([, property]) => isObject(property) && property.required === true)
    .map(([name]) => name);
}

/** 1 and 6: a tag list of refs, an enum with descriptions. */
function cleanedData(key, value) {
  if (key === 'tags') {
    count('tags $ref → names');
    return value.map((tag) =>
      isObject(tag) && typeof tag.$ref === 'string' ? tag.$ref.split('/').pop() : tag,
    );
  }
  if (key !== 'enum' || !Array.isArray(value)) return value;
  return value.map((item) => {
    if (typeof item !== 'string' || !/\s*--/.test(item)) return item;
    count('enum value description removed');
    return item.split(/\s*--/)[0].trim();
  });
}

const isTagRefs = (key, value) =>
  key === 'tags' && Array.isArray(value) && value.some((tag) => isObject(tag) && '$ref' in tag);

/** 3, 4, 5 and 2 on one schema whose members are already clean. */
function cleanedSchema(out, required) {
  if (out.format === 'nullable') {
    delete out.format;
    out.nullable = true;
    count('format: nullable → nullable: true');
  }
  if (out.format === 'date') {
    out.format = 'date-time';
    count('format: date → date-time');
  }
  if (typeof out.type === 'string' && !TYPES.has(out.type)) {
    const lower = out.type.toLowerCase();
    if (TYPES.has(lower)) out.type = lower;
    else delete out.type;
    count(TYPES.has(lower) ? 'type lower-cased' : 'type dropped');
  }
  if (typeof out.required === 'boolean' && !('in' in out)) {
    delete out.required;
    count('boolean required removed from a schema');
  }
  if (required.length > 0) {
    out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...required])];
    count('required: true → name in the parent required[]');
  }
  return out;
}

/** 9: an answer's array of pages as the page. */
function pageNotArray(schema) {
  const page = schema.items;
  if (schema.type !== 'array' || !isObject(page?.properties)) return schema;
  if (!('paging' in page.properties && 'results' in page.properties)) return schema;
  count('array of a page → the page');
  return page;
}

function clean(node, parentKey = '') {
  if (Array.isArray(node)) return node.map((item) => clean(item));
  if (!isObject(node)) return node;
  if (NAMES.has(parentKey)) {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, clean(value)]));
  }
  const required = requiredByProperty(node);
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (/^x-.*i18n$/.test(key)) count('x-*-i18n dropped');
    else if (DATA.has(key) || isTagRefs(key, value)) out[key] = cleanedData(key, value);
    else out[key] = clean(value, key);
  }
  const schema = cleanedSchema(out, required);
  if (parentKey === '200' && isObject(schema.content)) {
    for (const media of Object.values(schema.content)) {
      if (isObject(media.schema)) media.schema = pageNotArray(media.schema);
    }
  }
  return schema;
}

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node clean.mjs <document.yaml> <out.cleaned.json>');
  process.exit(2);
}
// js-yaml comes with the OpenAPI linter (@stoplight/spectral-cli), as test/contracts/trim.ts reads it.
const yaml = await import('js-yaml');
const document = yaml.load(readFileSync(input, 'utf8'), { schema: yaml.CORE_SCHEMA });
writeFileSync(output, `${JSON.stringify(clean(document), null, 2)}\n`);
console.log(`${input} → ${output}`);
for (const [what, n] of Object.entries(counts)) console.log(`  ${String(n).padStart(4)} × ${what}`);
