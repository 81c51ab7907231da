/**
 * `npm run test:stress [-- --runs <n>] [-- --hogs <n>] [-- <vitest arguments>]`: the whole suite `--runs` times in
 * a row (5 by default) while `--hogs` busy processes (1 by default) each hold a core, as a busy machine does. Prints
 * each run's duration and failed tests, then a summary; exits non-zero when any run failed. The bar is 0 failures
 * in 5 runs (docs/testing.md). Arguments after the flags go to `vitest run` (e.g. `--project integration`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags, positionals: vitestArgs } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    hogs: { type: 'string', default: '1' },
  },
  allowPositionals: true,
  strict: false,
});
const runs = Number(flags.runs);
const hogs = Number(flags.hogs);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(hogs) || hogs < 0) {
  console.error('usage: npm run test:stress -- [--runs <n ≥ 1>] [--hogs <n ≥ 0>] [vitest arguments]');
  process.exit(2);
}

const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const reports = mkdtempSync(join(tmpdir(), 'test-stress-'));

/**
 * A process that keeps one core busy. It checks now and then that this script still runs, so that it ends even
 * if this script is killed outright (no `finally` runs then).
 */
function startHog(): ChildProcess {
  const parent = process.pid;
  const loop = `for (;;) { for (let i = 0; i < 5e7; i++); if (process.ppid !== ${parent}) process.exit(0); }`;
  return spawn(process.execPath, ['-e', loop], { stdio: 'ignore' });
}

interface JsonReport {
  numTotalTests: number;
  numFailedTests: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

interface RunResult {
  run: number;
  seconds: number;
  exitCode: number | null;
  tests: number;
  failed: string[];
}

/** One `vitest run`, its progress on this terminal (dot reporter), its results from the JSON reporter. */
async function runSuite(run: number): Promise<RunResult> {
  const outputFile = join(reports, `run-${run}.json`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [vitest, 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${outputFile}`, ...vitestArgs],
    { stdio: 'inherit' },
  );
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  let report: JsonReport | undefined;
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8')) as JsonReport;
  } catch {
    // vitest died before writing its report: the exit code says so below
  }
  const failed = (report?.testResults ?? []).flatMap((file) => {
    const tests = file.assertionResults
      .filter((test) => test.status === 'failed')
      .map((test) => `${relative(file.name)} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    // A file can fail with no failed test: a hook, an import or an unhandled error.
    if (file.status === 'failed' && !tests.length)
      tests.push(`${relative(file.name)}: ${firstLine(file.message)}`);
    return tests;
  });
  if (exitCode !== 0 && !failed.length)
    failed.push(`vitest exited with ${exitCode} (no failed test reported)`);
  return { run, seconds, exitCode, tests: report?.numTotalTests ?? 0, failed };
}

const relative = (file: string) => file.replace(`${process.cwd()}/`, '');
const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0]?.slice(0, 200) ?? '';

const hogProcesses = Array.from({ length: hogs }, startHog);
const stopHogs = () => {
  for (const hog of hogProcesses) hog.kill('SIGKILL');
};
process.once('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopHogs();
    process.exit(130);
  });
}

const results: RunResult[] = [];
try {
  console.log(`test:stress: ${runs} run(s) of vitest, ${hogs} CPU hog(s) beside them\n`);
  for (let run = 1; run <= runs; run++) {
    const result = await runSuite(run);
    results.push(result);
    console.log(
      `\ntest:stress run ${run}/${runs}: ${result.seconds.toFixed(1)} s, ${result.tests} tests, ` +
        `${result.failed.length} failed`,
    );
    for (const name of result.failed) console.log(`  ✗ ${name}`);
    console.log();
  }
} finally {
  stopHogs();
  rmSync(reports, { recursive: true, force: true });
}

console.log('test:stress summary');
console.log('run  seconds  tests  failed');
for (const result of results) {
  console.log(
    `${String(result.run).padStart(3)}  ${result.seconds.toFixed(1).padStart(7)}  ${String(result.tests).padStart(5)}  ${String(result.failed.length).padStart(6)}`,
  );
}
const failures = results.reduce((sum, result) => sum + result.failed.length, 0);
const slowest = Math.max(...results.map((result) => result.seconds));
console.log(`${failures} failure(s) in ${results.length} run(s); slowest run ${slowest.toFixed(1)} s`);
process.exitCode = failures ? 1 : 0;
