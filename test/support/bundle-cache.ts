import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { version as esbuildVersion } from 'esbuild';
import { type Bundle, buildBundles, handlerNames, projectRoot } from '../bench/bundles.ts';

/**
 * Where built Lambda bundles are kept between runs (gitignored). Each build is a folder `build-*` of its own,
 * with its bundles at `<build>/<name>/index.mjs`: two levels below this folder, which matters, since a chunk's
 * name hashes its source map's relative paths (test/infra/bundles.test.ts builds its `cdk synth` beside them).
 */
export const BUNDLE_CACHE = join(projectRoot, '.cache', 'lambda-bundles');

const BUNDLES = 'bundles.json';
/** Written last: a build without it is unfinished (or failed) and never read. */
const MANIFEST = 'manifest.json';
/** Builds kept: the newest used, so that switching between two branches rebuilds nothing. */
const KEPT = 3;
const HOUR_MS = 3_600_000;

interface Manifest {
  recipe: string;
  /** Where the build was made: its bundles' paths are absolute. */
  dir: string;
  /** Every file esbuild read, relative to the project, with the hash of its content. */
  inputs: Record<string, string>;
}

// Bundle holds Maps, which JSON would write as {}.
const replacer = (_key: string, value: unknown) =>
  value instanceof Map ? { $map: [...value.entries()] } : value;
const reviver = (_key: string, value: unknown) =>
  value && typeof value === 'object' && '$map' in value ? new Map(value.$map as [unknown, unknown][]) : value;

export const bundlesToJson = (bundles: readonly Bundle[]) => JSON.stringify(bundles, replacer);
export const bundlesFromJson = (json: string) => JSON.parse(json, reviver) as Bundle[];

const hash = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * The project's files a build depends on that esbuild does not list among the inputs it read: how it builds (the
 * options in lib/bundling/, the baselines in test/bench/bundles.ts), the locked dependencies, and the settings
 * esbuild reads beside every source (tsconfig.json: `verbatimModuleSyntax`, class fields; package.json: `type`,
 * `imports`, `sideEffects`).
 */
const RECIPE_FILES = [
  'lib/bundling/lambda-bundling.ts',
  'test/bench/bundles.ts',
  'package-lock.json',
  'tsconfig.json',
  'package.json',
];

/**
 * Everything a build depends on besides the files esbuild reads: the esbuild version, the build's options,
 * `RECIPE_FILES`, which functions there are, and where node_modules really is (a symlinked node_modules puts its
 * files elsewhere, and the source maps' relative paths with them).
 */
export function bundleRecipe(options: { withoutPsps?: boolean }, root = projectRoot): string {
  return hash(
    JSON.stringify({
      format: 1,
      esbuildVersion,
      options,
      files: Object.fromEntries(RECIPE_FILES.map((path) => [path, hash(readFileSync(join(root, path)))])),
      handlers: handlerNames(),
      nodeModules: relative(root, realpathSync(join(root, 'node_modules'))),
    }),
  );
}

function readManifest(build: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(build, MANIFEST), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

function unchanged(manifest: Manifest, recipe: string, build: string): boolean {
  if (manifest.recipe !== recipe || manifest.dir !== build) return false;
  return Object.entries(manifest.inputs).every(([path, expected]) => {
    try {
      return hash(readFileSync(join(projectRoot, path))) === expected;
    } catch {
      return false;
    }
  });
}

const builds = () => {
  mkdirSync(BUNDLE_CACHE, { recursive: true });
  return readdirSync(BUNDLE_CACHE)
    .filter((name) => name.startsWith('build-'))
    .map((name) => join(BUNDLE_CACHE, name));
};

/**
 * Every Lambda bundle and its baseline (test/bench/bundles.ts): the kept build when neither its recipe nor any
 * file esbuild read for it has changed since, else a new build, kept for the next run. A build of the 35 functions
 * and their baselines costs about 80 CPU-s; checking a kept one, reading about 3,000 files, well under one
 * (docs/testing.md#speed).
 */
export async function cachedBundles(options: { withoutPsps?: boolean } = {}): Promise<Bundle[]> {
  const recipe = bundleRecipe(options);
  for (const build of builds()) {
    const manifest = readManifest(build);
    if (!manifest || !unchanged(manifest, recipe, build)) continue;
    const now = new Date();
    utimesSync(join(build, MANIFEST), now, now); // used: the last to be pruned
    return bundlesFromJson(readFileSync(join(build, BUNDLES), 'utf8'));
  }
  const build = mkdtempSync(join(BUNDLE_CACHE, 'build-'));
  const read = new Set<string>();
  const bundles = await buildBundles(build, { ...options, read });
  const inputs = Object.fromEntries(
    [...read]
      .filter((path) => path !== '<stdin>')
      .sort()
      .map((path) => [path, hash(readFileSync(join(projectRoot, path)))]),
  );
  writeFileSync(join(build, BUNDLES), bundlesToJson(bundles));
  writeFileSync(join(build, `${MANIFEST}.partial`), JSON.stringify({ recipe, dir: build, inputs }));
  renameSync(join(build, `${MANIFEST}.partial`), join(build, MANIFEST));
  prune();
  return bundles;
}

/**
 * Keeps the `KEPT` builds used last; removes the others, and unfinished builds and synth folders over an hour old
 * (a run that is still writing one is younger).
 */
function prune() {
  const ageOf = (path: string) => Date.now() - statSync(path).mtimeMs;
  const finished = builds()
    .filter((build) => readManifest(build))
    .sort((a, b) => ageOf(join(a, MANIFEST)) - ageOf(join(b, MANIFEST)));
  const unfinished = readdirSync(BUNDLE_CACHE)
    .map((name) => join(BUNDLE_CACHE, name))
    .filter((path) => !finished.includes(path) && ageOf(path) > HOUR_MS);
  for (const path of [...finished.slice(KEPT), ...unfinished]) rmSync(path, { recursive: true, force: true });
}
