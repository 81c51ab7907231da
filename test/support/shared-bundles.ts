import { closeSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import type { BundleFiles } from '../../lib/local/bundled-handlers.ts';
import type { HandlerName } from '../../lib/routes.ts';
import type { Bundle } from '../bench/bundles.ts';
import { bundlesFromJson, bundlesToJson, cachedBundles } from './bundle-cache.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** The folder where the run's files agree on its one set of Lambda bundles (test/support/global-setup.ts). */
    sharedBundlesDir: string;
  }
}

const LOCK = '.building';
const RESULT = '.bundles.json';
const FAILURE = '.failed.txt';

/**
 * Every Lambda bundle and its baseline (test/bench/bundles.ts), at most one build per `vitest run`, shared by the
 * files that need them (test/infra/bundles.test.ts budgets them, test/integration/bundled-functions.test.ts runs
 * them), and none when the build kept from an earlier run still holds (test/support/bundle-cache.ts): one build
 * of the 35 functions costs about 80 CPU-s (docs/testing.md#speed). The first file to ask finds or builds them,
 * in its own process, and the others wait for its answer; bundles are read-only to every user.
 */
export async function sharedBundles(): Promise<Bundle[]> {
  const dir = inject('sharedBundlesDir');
  if (claimBuild(dir)) {
    try {
      const bundles = await cachedBundles();
      // Written aside, then renamed: a waiting file never reads half of it.
      writeFileSync(join(dir, `${RESULT}.partial`), bundlesToJson(bundles));
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
    if (result !== undefined) return bundlesFromJson(result);
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
