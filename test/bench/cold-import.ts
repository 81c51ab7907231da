import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { Bundle } from './bundles.ts';

/** What a fresh process times: the dynamic import of one bundle, the way the Lambda runtime loads `index.mjs`. */
const probe = `const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));`;

/** The environment Lambda gives a function (the SDK clients are built at import, with no network call). */
const lambdaEnv = {
  PATH: process.env.PATH ?? '',
  NODE_OPTIONS: '--enable-source-maps',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  POWERTOOLS_SERVICE_NAME: 'payment-links',
};

function importOnce(file: string): number {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe, pathToFileURL(file).href], {
    env: lambdaEnv,
    encoding: 'utf8',
  });
  return Number(out);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * Median cold-import time of each bundle in `rounds` fresh processes, interleaved (one of each per round) so
 * machine noise spreads evenly over all of them. One unmeasured round first warms the file cache.
 */
export function measureColdImports(bundles: Bundle[], rounds: number): Map<string, number> {
  for (const bundle of bundles) importOnce(bundle.file);
  const samples = new Map<string, number[]>(bundles.map((bundle) => [bundle.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const bundle of bundles) samples.get(bundle.name)?.push(importOnce(bundle.file));
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}
