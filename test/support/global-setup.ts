import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Once per `vitest run`, before any file: the folder where the run's files agree on one set of Lambda bundles
 * (test/support/shared-bundles.ts). Nothing is built here: the first file that needs the bundles finds them kept
 * from an earlier run or builds them, while the other workers run their files, and a run that needs none builds
 * none.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'shared-bundles-'));
  project.provide('sharedBundlesDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
