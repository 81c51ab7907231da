import { relative } from 'node:path';
import type { ModuleDiagnostic, Reporter, TestModule, Vitest } from 'vitest/node';

/** One test file's time in a run. */
export interface FileTime {
  file: string;
  project: string;
  tests: number;
  /** From its worker's start on it to its end: environment, import, setup files, every test and hook. */
  seconds: number;
  passed: boolean;
}

/**
 * A file's whole time. A JSON report's `startTime`/`endTime` run from its first test's start to its last test's
 * end, leaving out the import and the `beforeAll` hooks, where a file starts its stack, its CLIs or waits for the
 * Lambda bundles.
 */
export const fileSeconds = (diagnostic: ModuleDiagnostic): number =>
  (diagnostic.environmentSetupDuration +
    diagnostic.prepareDuration +
    diagnostic.collectDuration +
    diagnostic.setupDuration +
    diagnostic.duration) /
  1000;

/** The files longest first, as the Markdown table of docs/testing.md#per-file-times. */
export function timesTable(times: readonly FileTime[]): string {
  const sorted = [...times].sort((a, b) => b.seconds - a.seconds);
  const total = sorted.reduce((sum, time) => sum + time.seconds, 0);
  const rows = sorted.map(
    (time) =>
      `| \`${time.file}\` | ${time.project} | ${time.tests} | ${time.seconds.toFixed(1)}${time.passed ? '' : ' (failed)'} |`,
  );
  return [
    '| file | project | tests | s |',
    '| ---- | ------- | ----: | -: |',
    ...rows,
    '',
    `${sorted.length} files, ${total.toFixed(0)} s summed; they run three at a time, so the run's own time is vitest's Duration.`,
  ].join('\n');
}

/**
 * Prints every file's time when the run ends (`npm run test:times`): `--reporter=default
 * --reporter=./test/support/file-times-reporter.ts` keeps vitest's own report beside it.
 */
export default class FileTimesReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const times = testModules.map((module) => ({
      file: relative(this.root, module.moduleId),
      project: module.project.name,
      tests: [...module.children.allTests()].length,
      seconds: fileSeconds(module.diagnostic()),
      passed: module.state() === 'passed',
    }));
    process.stdout.write(`\nPer-file times (docs/testing.md#per-file-times)\n\n${timesTable(times)}\n`);
  }
}
