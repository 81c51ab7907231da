import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * What a function's cold start loads is its handler's static import graph: esbuild puts a module reached only
 * through `import()` in a chunk of its own, loaded by the first request that calls it
 * (docs/performance.md#a-buyers-cold-start). This test reads that graph file by file, each stripped of its types
 * as the bundle's build strips them (esbuild, `verbatimModuleSyntax`), with no bundle built;
 * test/infra/bundles.test.ts checks the same on the built bundles.
 */

const root = join(import.meta.dirname, '..', '..');

/** esbuild prints every import in one form: `import … from "x";`, `import "x";`, `export … from "x";`, `import("x")`. */
const STATIC = /^(?:import|export)\b[^;"'`()]*?(?:\bfrom\s*)?"([^"]+)";/gm;
const DYNAMIC = /\bimport\(\s*"([^"]+)"\s*\)/g;

interface Imports {
  /** Erased imports aside (`import type`, `export type … from`); `import { type A }` stays: it still loads. */
  static: string[];
  dynamic: string[];
}

const read = new Map<string, Imports>();

function importsOf(file: string): Imports {
  const known = read.get(file);
  if (known) return known;
  const { code } = transformSync(readFileSync(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  const imports = {
    static: [...code.matchAll(STATIC)].map((match) => match[1] as string),
    dynamic: [...code.matchAll(DYNAMIC)].map((match) => match[1] as string),
  };
  read.set(file, imports);
  return imports;
}

/** A file of ours by its path from the root, or a package by its specifier (`libphonenumber-js/max`). */
const named = (from: string, specifier: string): string =>
  specifier.startsWith('.') ? relative(root, resolve(dirname(from), specifier)) : specifier;

/** What a cold start of `handler` loads (its static closure) and what it may load later (`import()`). */
function graphOf(handler: string): { cold: Set<string>; onDemand: Set<string> } {
  const cold = new Set<string>();
  const onDemand = new Set<string>();
  const walk = (name: string, into: Set<string>) => {
    if (cold.has(name) || into.has(name)) return;
    into.add(name);
    const file = join(root, name);
    if (!name.startsWith('functions/') || !existsSync(file)) return;
    const imports = importsOf(file);
    for (const specifier of imports.static) walk(named(file, specifier), into);
    for (const specifier of imports.dynamic) walk(named(file, specifier), onDemand);
  };
  walk(`functions/handlers/${handler}.ts`, cold);
  for (const name of cold) onDemand.delete(name);
  return { cold, onDemand };
}

const LANGUAGES = ['en', 'nl', 'de', 'fr', 'es'];
const checkoutTexts = LANGUAGES.map((language) => `functions/http/checkout/messages/${language}.ts`);
const consoleTexts = LANGUAGES.map((language) => `functions/http/console/messages/${language}.ts`);
const formTables = ['functions/domain/checkout/tables.ts', 'libphonenumber-js/max', 'postcode-validator'];
const consolePages = ['pages', 'links', 'webhooks', 'psps', 'settings', 'books', 'keys'].map(
  (page) => `functions/http/console/${page}.ts`,
);

describe('a cold start loads what every request needs, and the rest when a request needs it', () => {
  it.each([
    ['checkout-page', [...checkoutTexts, ...formTables]],
    ['sandbox-checkout', checkoutTexts],
    ['checkout-qr', checkoutTexts],
    ['console', [...consoleTexts, ...checkoutTexts, ...consolePages, 'qr', 'csv-stringify/sync']],
    ['console-overview', [...consoleTexts, ...checkoutTexts]],
  ])('%s: no language’s texts, form tables or console pages at a cold start', (handler, later) => {
    const { cold } = graphOf(handler);
    // The walk reads through the files every page takes (a walk that read no import would find nothing).
    expect([...cold]).toEqual(
      expect.arrayContaining(['functions/http/html-handler.ts', 'functions/http/html.ts']),
    );
    expect(later.filter((name) => cold.has(name))).toEqual([]);
  });

  it.each([
    ['checkout-page', [...checkoutTexts, ...formTables]],
    ['console', [...consoleTexts, ...consolePages]],
    ['console-overview', consoleTexts],
  ])('%s: each of them still loaded by the requests that need it', (handler, later) => {
    const { onDemand } = graphOf(handler);
    expect(later.filter((name) => !onDemand.has(name))).toEqual([]);
  });
});
