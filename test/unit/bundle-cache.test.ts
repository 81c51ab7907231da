import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../bench/bundles.ts';
import { bundleRecipe } from '../support/bundle-cache.ts';

/** The project's files a kept build must not outlive a change of: esbuild reads them but does not list them. */
const BUILD_SETTINGS = [
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'lib/bundling/lambda-bundling.ts',
  'test/bench/bundles.ts',
];

describe('the recipe a kept Lambda bundle build is reused for (test/support/bundle-cache.ts)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bundle-recipe-'));
    for (const path of BUILD_SETTINGS) cpSync(join(projectRoot, path), join(root, path));
    symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it.each(BUILD_SETTINGS)('is another once %s changes', (path) => {
    const before = bundleRecipe({}, root);
    expect(bundleRecipe({}, root)).toBe(before);

    appendFileSync(join(root, path), '\n');

    expect(bundleRecipe({}, root)).not.toBe(before);
  });

  it('is another for a build without the PSP SDKs', () => {
    expect(bundleRecipe({ withoutPsps: true }, root)).not.toBe(bundleRecipe({}, root));
  });
});
