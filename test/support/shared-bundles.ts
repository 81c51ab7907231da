import { closeSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import type { BundleFiles } from '../../lib/local/bundled-handlers.ts';
import type { HandlerName } from '../../lib/routes.ts';
import { type Bundle, buildBundles } from '../bench/bundles.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** The folder of the run's one build of the Lambda bundles (test/support/global-setup.ts). */
    sharedBundlesDir: string;
  }
}

// Beside the bundles' folders, named so that no function's can be.
const LOCK = '.building';
const RESULT = '.bundles.json';
const FAILURE = '.failed.txt';

// Bundle holds Maps, which JSON would write as {}.
const replacer = (_key: string, value: unknown) =>
  value instanceof Map ? { $map: [...value.entries()] } : value;
const reviver = (_key: string, value: unknown) =>
  value && typeof value === 'object' && '$map' in value ? new Map(value.$map as [unknown, unknown][]) : value;

/**
 * Every Lambda bundle and its baseline (test/bench/bundles.ts), built once per `vitest run` and shared by the
 * files that need them (test/infra/bundles.test.ts budgets them, test/integration/bundled-functions.test.ts runs
 * them): one build of the 35 functions costs about a minute of CPU on two cores (docs/testing.md#speed). The first
 * file to ask builds, in its own process, and the others wait for its result; bundles are read-only to every user.
 */
export async function sharedBundles(): Promise<Bundle[]> {
  const dir = inject('sharedBundlesDir');
  if (claimBuild(dir)) {
    try {
      // Each bundle at <dir>/<name>, as deep under the temporary folder as a `cdk synth` asset is: a chunk's name
      // hashes its source map's relative paths, and test/infra/bundles.test.ts compares names with a synth's.
      const bundles = await buildBundles(dir);
      // Written aside, then renamed: a waiting file never reads half of it.
      writeFileSync(join(dir, `${RESULT}.partial`), JSON.stringify(bundles, replacer));
      renameSync(join(dir, `${RESULT}.partial`), join(dir, RESULT));
      return bundles;
    } catch (error) {
      writeFileSync(join(dir, FAILURE), String((error as Error).stack ?? error));
      throw error;
    }
  }
  // The caller's hook timeout bounds the wait: the build has no bound of its own on a loaded machine.
  for (;;) {
    const result = readIfPresent(join(dir, RESULT));
    if (result !== undefined) return JSON.parse(result, reviver) as Bundle[];
    const failure = readIfPresent(join(dir, FAILURE));
    if (failure !== undefined)
      throw new Error(`The shared bundle build failed in another test file: ${failure}`);
    await sleep(200);
  }
}

/** The handlers' bundles among them, as the local stack runs them (lib/local/bundled-handlers.ts). */
export function functionBundleFiles(bundles: readonly Bundle[]): BundleFiles {
  return new Map(
    bundles
      .filter((bundle) => bundle.baseline !== undefined)
      .map((bundle) => [bundle.name as HandlerName, bundle.file] as const),
  );
}

/** Whether this file is the one to build: the first to create the lock file. */
function claimBuild(dir: string): boolean {
  try {
    closeSync(openSync(join(dir, LOCK), 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
