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

/** A subject judged against a baseline: a row of the table. */
export interface ImportPair {
  name: string;
  subject: ImportSubject;
  baseline: ImportSubject;
}

export interface PairTimes {
  /** Median times of the subject and of the baseline. */
  subject: ImportTime;
  baseline: ImportTime;
  /** The median over rounds of the subject's CPU time divided by the baseline's in the same round. */
  ratio: number;
}

/**
 * Each pair's cold imports in `rounds` fresh processes each, the subject and its baseline one right after the
 * other (in alternating order, ABBA, so neither is always second), and the pairs' rounds interleaved. This machine's
 * speed drifts by 10-20% over seconds (docs/performance.md#running-the-benchmark): two imports a few hundred
 * ms apart see the same machine, where two a round apart (a round of every bundle is half a minute) need not, so
 * the ratio is taken within each pair and its median reported. One unmeasured import of each first warms the file
 * cache.
 */
export function measurePairedImports(pairs: readonly ImportPair[], rounds: number): Map<string, PairTimes> {
  for (const pair of pairs) {
    importOnce(pair.subject);
    importOnce(pair.baseline);
  }
  const samples = new Map<string, { subject: ImportTime; baseline: ImportTime }[]>(
    pairs.map((pair) => [pair.name, []]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const pair of pairs) {
      const subjectFirst = round % 2 === 0;
      const first = importOnce(subjectFirst ? pair.subject : pair.baseline);
      const second = importOnce(subjectFirst ? pair.baseline : pair.subject);
      samples
        .get(pair.name)
        ?.push(subjectFirst ? { subject: first, baseline: second } : { subject: second, baseline: first });
    }
  }
  const medianTime = (times: ImportTime[]): ImportTime => ({
    wallMs: median(times.map((time) => time.wallMs)),
    cpuMs: median(times.map((time) => time.cpuMs)),
  });
  return new Map(
    [...samples].map(([name, measured]) => [
      name,
      {
        subject: medianTime(measured.map((sample) => sample.subject)),
        baseline: medianTime(measured.map((sample) => sample.baseline)),
        ratio: median(measured.map((sample) => sample.subject.cpuMs / sample.baseline.cpuMs)),
      },
    ]),
  );
}
