import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda bundle is built, in one place: lib/constructs/service-function.ts hands these to
 * NodejsFunction (which runs the local esbuild, never Docker), and the benchmark and the bundle-size test build
 * with `esbuildOptions` below, so what is measured is what `cdk synth` ships. Pure data: no CDK import.
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
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
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

/** The file NodejsFunction writes for an ESM bundle. */
export const LAMBDA_BUNDLE_FILE = 'index.mjs';

/**
 * The esbuild build options equivalent to the command NodejsFunction runs for `lambdaBundling`
 * (`esbuild --bundle <entry> --target --platform=node --format --outfile --minify --sourcemap
 * --sources-content=false --external:... --banner:js --main-fields`), for building the same bundles outside
 * `cdk synth`.
 */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
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
    logLevel: 'silent',
  };
}
