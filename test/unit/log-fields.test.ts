import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Every TypeScript file under functions/ (what runs in Lambda and writes the logs). */
function sources(dir = join(root, 'functions')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The field names of the object literal each `logger.<level>(message, { ... })` call passes. */
function loggedFields(source: string): string[] {
  const fields: string[] = [];
  for (const call of source.matchAll(/logger\.(?:debug|info|warn|error|critical)\(/g)) {
    let depth = 0;
    let end = call.index + call[0].length - 1;
    for (; end < source.length; end++) {
      if (source[end] === '(') depth++;
      else if (source[end] === ')' && --depth === 0) break;
    }
    const args = source.slice(call.index + call[0].length, end);
    const literal = args.slice(args.indexOf('{'));
    for (const field of literal.matchAll(/[{,]\s*([A-Za-z_$][\w$]*)\s*[:,}]/g))
      fields.push(field[1] as string);
  }
  return fields;
}

describe('log fields', () => {
  it('are spelled in snake_case everywhere, so one id has one field name (link_id, event_id, ...)', () => {
    const camel = sources().flatMap((file) =>
      loggedFields(readFileSync(file, 'utf8'))
        .filter((field) => /[A-Z]/.test(field))
        .map((field) => `${relative(root, file)}: ${field}`),
    );
    expect(camel).toEqual([]);
  });

  it('are found by the check above (it would see a camelCase field)', () => {
    expect(loggedFields("logger.warn('x', { eventId: event.id, error });")).toEqual(['eventId', 'error']);
    expect(loggedFields("logger.info('expired', result);")).toEqual([]);
  });
});
