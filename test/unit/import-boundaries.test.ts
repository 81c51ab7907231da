import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const functionsDir = join(root, 'functions');
/** The response schema files (classic zod): response-schemas.ts and the ones beside it built from its fields. */
const isResponseSchemas = (file: string | undefined) => file?.endsWith('response-schemas.ts') === true;

/** Every TypeScript file under functions/ (what esbuild bundles into the Lambda functions). */
function sources(dir = functionsDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

interface Import {
  specifier: string;
  /** `import type` / `export type` / `typeof import()`: erased before bundling. */
  typeOnly: boolean;
}

/** The module specifiers a source imports or re-exports, statically or with `import()`. */
function importsOf(source: string): Import[] {
  const statements = source.matchAll(
    /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s*from\s*)?['"]([^'"]+)['"]/gm,
  );
  const dynamic = source.matchAll(/(typeof\s+)?\bimport\(\s*['"]([^'"]+)['"]\s*\)/g);
  return [...statements, ...dynamic].map(([, type, specifier]) => ({
    specifier: specifier as string,
    typeOnly: type !== undefined,
  }));
}

/** The file a relative specifier names; undefined for a package (`zod`, `node:fs`). */
const target = (file: string, specifier: string) =>
  specifier.startsWith('.') || specifier.startsWith('/') ? resolve(dirname(file), specifier) : undefined;

const importsOfFunctions = () =>
  sources().flatMap((file) =>
    importsOf(readFileSync(file, 'utf8')).map((entry) => ({
      ...entry,
      file,
      target: target(file, entry.specifier),
    })),
  );

describe('code under functions/', () => {
  it('imports only packages and files under functions/, never the build-time lib/, bin/ or test/', () => {
    // lib/ may import functions/ (the stacks wire the handlers, lib/openapi documents their schemas), never the reverse.
    const outside = importsOfFunctions()
      .filter((entry) => entry.target !== undefined && !entry.target.startsWith(functionsDir + sep))
      .map((entry) => `${relative(root, entry.file)} imports ${relative(root, entry.target as string)}`);
    expect(outside).toEqual([]);
  });

  it('takes the response schemas (classic zod) as types only, so that no bundle carries classic zod', () => {
    const valueImports = importsOfFunctions()
      .filter((entry) => isResponseSchemas(entry.target) && !isResponseSchemas(entry.file) && !entry.typeOnly)
      .map((entry) => relative(root, entry.file));
    expect(valueImports).toEqual([]);
  });

  it('has its imports found by the checks above, in every form an import takes', () => {
    const source = [
      "import { z } from 'zod';",
      "import type {\n  PaymentLinkSchema,\n  EventSchema,\n} from './response-schemas.ts';",
      "import '../../lib/side-effect.ts';",
      "export { routes } from '../../bin/app.ts';",
      "export * from '../test/support/x.ts';",
      "const sdk = await import('stripe');",
      "type Client = typeof import('../../lib/client.ts').default;",
      "const text = 'not an import from here';",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { specifier: 'zod', typeOnly: false },
      { specifier: './response-schemas.ts', typeOnly: true },
      { specifier: '../../lib/side-effect.ts', typeOnly: false },
      { specifier: '../../bin/app.ts', typeOnly: false },
      { specifier: '../test/support/x.ts', typeOnly: false },
      { specifier: 'stripe', typeOnly: false },
      { specifier: '../../lib/client.ts', typeOnly: true },
    ]);
  });
});
