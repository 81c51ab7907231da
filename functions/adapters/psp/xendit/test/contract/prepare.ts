/**
 * Xendit's contract, refreshed from `xendit.assembled.json` (its fragments as published, SOURCE.md):
 *
 *   node functions/adapters/psp/xendit/test/contract/prepare.ts
 *
 * Xendit publishes its keyword values as strings (`"minLength": "27"`, `"nullable": "true"`,
 * `"exclusiveMinimum": "true"`), which no validator takes ("maxLength value must be number"): each is read back as
 * the number or boolean it spells, and nothing else changes. The result is then trimmed by test/contracts/trim.ts
 * to `xendit.trim.json`'s operations and written as `xendit.trimmed.json`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { trim } from '../../../../../../test/contracts/trim.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NUMBERS = new Set([
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'multipleOf',
]);
// OpenAPI 3.0's `exclusiveMinimum` and `exclusiveMaximum` are booleans beside `minimum` and `maximum`.
const BOOLEANS = new Set([
  'nullable',
  'required',
  'readOnly',
  'writeOnly',
  'uniqueItems',
  'deprecated',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);
/** Keys whose members are names (of properties), never keywords. */
const NAMES = new Set(['properties', 'patternProperties']);

/** The document with every keyword value written as a string read as the number or boolean it spells. */
export function withTypedKeywords(node: Json, parentKey = ''): Json {
  if (Array.isArray(node)) return node.map((item) => withTypedKeywords(item));
  if (node === null || typeof node !== 'object') return node;
  const typed: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    const keyword = !NAMES.has(parentKey);
    if (keyword && NUMBERS.has(key) && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) {
      typed[key] = Number(value);
    } else if (keyword && BOOLEANS.has(key) && (value === 'true' || value === 'false')) {
      typed[key] = value === 'true';
    } else typed[key] = withTypedKeywords(value, key);
  }
  return typed;
}

if (import.meta.main) {
  const here = (name: string) => new URL(`./${name}`, import.meta.url);
  const assembled = JSON.parse(readFileSync(here('xendit.assembled.json'), 'utf8')) as Record<string, Json>;
  const { operations, ...options } = JSON.parse(readFileSync(here('xendit.trim.json'), 'utf8'));
  const source =
    "Xendit's OpenAPI fragments (docs.xendit.co/apidocs) as assembled in xendit.assembled.json, keyword values typed by prepare.ts";
  const trimmed = trim(withTypedKeywords(assembled) as Record<string, Json>, operations, source, options);
  writeFileSync(here('xendit.trimmed.json'), `${JSON.stringify(trimmed, null, 2)}\n`);
  console.log('wrote xendit.trimmed.json');
}
