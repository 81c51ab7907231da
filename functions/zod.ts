import { config, type core } from 'zod/mini';

/**
 * zod for code that runs in Lambda: the tree-shakable `zod/mini` API. Import it as
 * `import * as z from '../zod.ts'`. The classic `zod` API hangs every method on every schema, so a bundle
 * keeps all of it and its JSON Schema generator: about 100 KB and 15 ms of cold start more per function.
 * Same validation core, so the schemas still generate the OpenAPI document.
 *
 * The messages of the built-in checks are ours, written for the `detail` of a 422 field error (the schemas
 * give their own for everything domain-specific). Smaller than zod's English locale, which covers formats and
 * types our API never uses.
 */
const SIZE_UNITS: Record<string, string> = { string: 'characters', array: 'items', object: 'keys' };

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function bound(kind: 'most' | 'least', limit: unknown, origin: string | undefined): string {
  const unit = origin && SIZE_UNITS[origin];
  return unit ? `Must have at ${kind} ${String(limit)} ${unit}.` : `Must be at ${kind} ${String(limit)}.`;
}

export function fieldMessage(issue: core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? 'Required.'
        : `Must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}, not ${describe(issue.input)}.`;
    case 'too_big':
      return bound('most', issue.maximum, issue.origin);
    case 'too_small':
      return bound('least', issue.minimum, issue.origin);
    case 'invalid_format':
      return issue.format === 'datetime'
        ? 'Must be an RFC 3339 date-time with a time zone.'
        : `Must be a valid ${issue.format}.`;
    case 'not_multiple_of':
      return issue.divisor === 1 ? 'Must be an integer.' : `Must be a multiple of ${String(issue.divisor)}.`;
    case 'invalid_value':
      return `Must be one of: ${issue.values.map((value) => JSON.stringify(value)).join(', ')}.`;
    default:
      return 'Invalid value.';
  }
}

config({ localeError: fieldMessage });

export * from 'zod/mini';
