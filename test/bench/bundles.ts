import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildOptions, LAMBDA_BUNDLE_FILE } from '../../lib/bundling/lambda-bundling.ts';

export const projectRoot = join(import.meta.dirname, '..', '..');
const handlersDir = join(projectRoot, 'functions', 'handlers');

/** The baseline: the bare DynamoDB client + lib-dynamodb doing one PutItem, bundled the same way. */
export const BASELINE = 'bare-dynamodb-client';
const baselineEntry = join(import.meta.dirname, 'bare-dynamodb-put.ts');

export interface Bundle {
  name: string;
  /** The built index.mjs, as in the Lambda asset. */
  file: string;
  bytes: number;
  gzipBytes: number;
  /** The source map shipped next to it (read only when an error is logged with --enable-source-maps). */
  mapBytes: number;
  /** Every source file that contributed bytes, relative to the project root (from esbuild's metafile). */
  inputs: string[];
}

/** Every Lambda entry point: each file of functions/handlers/ (new handlers are picked up on their own). */
export function handlerNames(): string[] {
  return readdirSync(handlersDir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
}

/**
 * Builds every handler and the baseline with the options `cdk synth` uses (lib/bundling/lambda-bundling.ts),
 * all at once, into `outdir/<name>/index.mjs`. The baseline comes last.
 */
export async function buildBundles(outdir: string): Promise<Bundle[]> {
  const entries = [
    ...handlerNames().map((name) => ({ name, entry: join(handlersDir, `${name}.ts`) })),
    { name: BASELINE, entry: baselineEntry },
  ];
  return Promise.all(
    entries.map(async ({ name, entry }) => {
      const dir = join(outdir, name);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, LAMBDA_BUNDLE_FILE);
      const { metafile } = await build({
        ...esbuildOptions(entry, file),
        absWorkingDir: projectRoot,
        metafile: true,
      });
      const output = Object.entries(metafile.outputs).find(([path]) =>
        path.endsWith(LAMBDA_BUNDLE_FILE),
      )?.[1];
      const code = readFileSync(file);
      return {
        name,
        file,
        bytes: code.length,
        gzipBytes: gzipSync(code, { level: 9 }).length,
        mapBytes: readFileSync(`${file}.map`).length,
        inputs: Object.entries(output?.inputs ?? {})
          .filter(([, input]) => input.bytesInOutput > 0)
          .map(([path]) => path),
      };
    }),
  );
}
