import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { lambdaEnvironment } from '../../lib/bundling/lambda-bundling.ts';

/**
 * What a fresh process times: the dynamic import of one bundle, the way the Lambda runtime loads `index.mjs`,
 * as wall time and as the CPU time the process spent on it (user + system).
 */
const probe = [
  'const cpu = process.cpuUsage(); const t = performance.now();',
  'await import(process.argv[1]);',
  'const used = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (used.user + used.system) / 1000 }));',
].join(' ');

/**
 * What a fresh process times for a first call's load: the bundle's `index.mjs` is imported first (not timed),
 * then the chunks named after it, together, as an adapter's `import()`s load them.
 */
const firstCallProbe = [
  'await import(process.argv[1]);',
  'const cpu = process.cpuUsage(); const t = performance.now();',
  'await Promise.all(process.argv.slice(2).map((chunk) => import(chunk)));',
  'const used = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (used.user + used.system) / 1000 }));',
].join(' ');

export interface ImportTime {
  /** Wall time of the import (of the median, in a summary). */
  wallMs: number;
  /**
   * CPU time of the import: what the budget is judged on, since the import is single-threaded work that a
   * loaded machine (other processes on its cores) stretches in wall time but not in CPU time.
   */
  cpuMs: number;
}

export interface ImportTimes extends ImportTime {
  /** Every round's time, in round order: round i of one bundle ran right beside round i of every other. */
  rounds: ImportTime[];
}

/**
 * The environment Lambda gives a function, with what the stack sets on every function (the SDK clients are
 * built at import, with no network call).
 */
const lambdaEnv = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  ...lambdaEnvironment,
};

/** One measurement in a fresh process: a bundle's cold import, or (with `chunks`) a first call's load. */
export interface ImportSubject {
  name: string;
  file: string;
  chunks?: readonly string[];
}

function importOnce({ file, chunks }: ImportSubject): ImportTime {
  const urls = [file, ...(chunks ?? [])].map((path) => pathToFileURL(path).href);
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', chunks ? firstCallProbe : probe, ...urls],
    { env: lambdaEnv, encoding: 'utf8' },
  );
  return JSON.parse(out) as ImportTime;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * Median cold-import times of each bundle in `rounds` fresh processes, interleaved (one of each per round) so
 * machine noise spreads evenly over all of them. One unmeasured round first warms the file cache.
 */
export function measureColdImports(
  subjects: readonly ImportSubject[],
  rounds: number,
): Map<string, ImportTimes> {
  for (const subject of subjects) importOnce(subject);
  const samples = new Map<string, ImportTime[]>(subjects.map((subject) => [subject.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const subject of subjects) samples.get(subject.name)?.push(importOnce(subject));
  }
  return new Map(
    [...samples].map(([name, times]) => [
      name,
      {
        wallMs: median(times.map((time) => time.wallMs)),
        cpuMs: median(times.map((time) => time.cpuMs)),
        rounds: times,
      },
    ]),
  );
}

/**
 * The median over rounds of one bundle's CPU time divided by its baseline's in the same round. Both ran within
 * the same few seconds, so a slow patch of the machine stretches both and mostly cancels out, where a ratio of
 * two medians (each from other moments) carries the noise of both.
 */
export function pairedCpuRatio(bundle: ImportTimes, baseline: ImportTimes): number {
  return median(
    bundle.rounds.map((time, round) => time.cpuMs / (baseline.rounds[round]?.cpuMs ?? Number.NaN)),
  );
}
