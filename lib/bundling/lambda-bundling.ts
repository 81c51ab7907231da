import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildOptions, Metafile } from 'esbuild';

/**
 * How every Lambda bundle is built, in one place: lib/constructs/service-function.ts runs esbuild with
 * `esbuildOptions` when `cdk synth` stages a function's asset (the local esbuild, never Docker), and the
 * benchmark, the bundle tests and `npm start -- --bundled` build with the same options, so what is measured and
 * tested is what `cdk synth` ships. Pure data: no CDK import.
 */
export const lambdaBundling = {
  format: 'esm',
  target: 'node24',
  minify: true,
  sourceMap: true,
  /**
   * Maps without the original sources: mapping a logged stack (functions/source-mapped-stack.ts) needs only the
   * mappings, and the sources were two thirds of the map's bytes.
   */
  sourcesContent: false,
  /** Prefer the ESM build of each package: esbuild can only tree-shake ES modules. */
  mainFields: ['module', 'main'],
  /** Bundle everything, the AWS SDK included: the tested versions, and only the clients a function imports. */
  externalModules: [] as string[],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins (in every chunk).
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
} as const;

/**
 * The environment every function starts with (its own variables are added to it). No `NODE_OPTIONS=
 * --enable-source-maps`: Node would then read and parse the whole `.map` at every cold start, about a quarter
 * of the import's CPU, though only a logged error needs it; the logger maps stacks itself, on demand
 * (functions/source-mapped-stack.ts, docs/decisions.md).
 */
export const lambdaEnvironment: Readonly<Record<string, string>> = {
  POWERTOOLS_SERVICE_NAME: 'payment-links',
};

/**
 * What every import of `http` / `node:http` in a bundle resolves to: Node's module without the ES module
 * namespace, whose construction loads undici (functions/clients/node-http.ts).
 */
const NODE_HTTP = join(import.meta.dirname, '..', '..', 'functions', 'clients', 'node-http.ts');

/** The file the Lambda runtime loads (handler `index.handler`). */
export const LAMBDA_BUNDLE_FILE = 'index.mjs';

/**
 * The esbuild build options of one function's asset: the entry becomes `<outdir>/index.mjs`, and every module
 * reached only through a dynamic `import()` (each PSP's SDK, the AWS SDK's unused credential providers) becomes
 * a chunk beside it, loaded by relative path on the first call that needs it, so a cold start parses only what
 * the entry imports statically (docs/performance.md#cold-start). Code splitting needs ESM and an output folder;
 * every file has its source map beside it.
 */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    entryNames: 'index',
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    bundle: true,
    platform: 'node',
    target: lambdaBundling.target,
    format: lambdaBundling.format,
    minify: lambdaBundling.minify,
    sourcemap: lambdaBundling.sourceMap,
    sourcesContent: lambdaBundling.sourcesContent,
    external: [...lambdaBundling.externalModules],
    mainFields: [...lambdaBundling.mainFields],
    banner: { js: lambdaBundling.banner },
    alias: { http: NODE_HTTP, 'node:http': NODE_HTTP },
    logLevel: 'silent',
  };
}

/**
 * The output files no import of the entry's can reach, relative to the build's working folder. esbuild makes a
 * chunk for every `import()` it finds before tree shaking, so a function that bundles the PSP registry but never
 * calls it still gets the PSP SDKs' chunks, which nothing loads.
 */
export function unreachableOutputs(metafile: Metafile): string[] {
  const outputs = Object.keys(metafile.outputs).filter((path) => !path.endsWith('.map'));
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (!imported.external) visit(imported.path);
    }
  };
  for (const path of outputs)
    if (metafile.outputs[path]?.entryPoint && path.endsWith(`/${LAMBDA_BUNDLE_FILE}`)) visit(path);
  return outputs.filter((path) => !reached.has(path));
}

/** Deletes the unreachable outputs (and their maps) of a build run in `workingDir`, so the asset ships none. */
export function pruneUnreachable(metafile: Metafile, workingDir: string): Metafile {
  const dead = new Set(unreachableOutputs(metafile));
  for (const path of dead) {
    rmSync(join(workingDir, path), { force: true });
    rmSync(join(workingDir, `${path}.map`), { force: true });
  }
  return {
    inputs: metafile.inputs,
    outputs: Object.fromEntries(
      Object.entries(metafile.outputs).filter(
        ([path]) => !dead.has(path) && !dead.has(path.replace(/\.map$/, '')),
      ),
    ),
  };
}

/**
 * How many esbuild builds run at once when many functions are built (each is parallel within itself): esbuild
 * holds every module of a build in memory until it ends, and the 58 bundles of the bundle tests built all at once
 * took about 6 GB and, on a machine short of memory, several times the CPU (docs/testing.md#speed).
 */
export const BUILDS_AT_ONCE = 2;

/** `build` of each item, at most `BUILDS_AT_ONCE` at a time; the results in the items' order. */
export async function buildEach<T, R>(items: readonly T[], build: (item: T, index: number) => Promise<R>) {
  const results: R[] = [];
  let next = 0;
  const builder = async () => {
    for (let index = next++; index < items.length; index = next++) {
      results[index] = await build(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: BUILDS_AT_ONCE }, builder));
  return results;
}
