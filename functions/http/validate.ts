import { type FieldError, ValidationError } from '../domain/errors.ts';
import { once } from '../once.ts';
import * as z from '../zod.ts';

const escapePointerToken = (token: PropertyKey) => String(token).replaceAll('~', '~0').replaceAll('/', '~1');
const pointer = (path: readonly PropertyKey[]) =>
  path.map((token) => `/${escapePointerToken(token)}`).join('');

/** Parses `input` with `schema`, or throws a 422 with one JSON-Pointer entry per bad field. */
export function validate<T extends z.core.$ZodType>(schema: T, input: unknown): z.output<T> {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  const errors = new Map<string, FieldError>();
  for (const issue of result.error.issues) {
    const fields =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ path: [...issue.path, key], detail: 'Unknown field.' }))
        : [{ path: issue.path, detail: issue.message }];
    for (const field of fields) {
      const at = pointer(field.path);
      if (!errors.has(at)) errors.set(at, { pointer: at, detail: field.detail });
    }
  }
  throw new ValidationError([...errors.values()]);
}

/**
 * The body of actions that take none (cancel, redeliver): omitted, empty, or `{}`; any field is an error. Here
 * rather than in api/schemas.ts, whose URL rules pull ipaddr.js (CommonJS, never tree-shaken) into every bundle.
 */
export const emptyRequest = /* @__PURE__ */ once(() => z.optional(z.strictObject({})));
