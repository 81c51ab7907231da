import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { timeoutFor } from './test/support/eventually.ts';
import { LongestFirstSequencer } from './test/support/sequencer.ts';

// Node's compile cache (V8's code cache, on disk) for every process of the run: the workers, and the CLIs,
// `npm start`s and function containers the tests start, which would each compile the same modules again
// (docs/testing.md#speed). Set before the workers start, so they and their children inherit it.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, '.cache', 'node-compile-cache');

/** One vitest project per kind of test (unit, integration, infra, browser), each runnable alone; `npm test` runs them all. */
// The functions' JSON request logs and metric lines would drown the report; warnings and errors still show.
// The tests of what the logs say turn INFO or DEBUG back on (each in a process of its own, LOGGING_TESTS),
// test/integration/metrics.test.ts the metrics.
const env = { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true' };
const LOGGING_TESTS = [
  'test/integration/logging.test.ts',
  'test/integration/buyer-logging.test.ts',
  'test/integration/checkout-forms-logs.test.ts',
  'test/integration/personal-data.test.ts',
];

/** A PSP's own tests, in its folder: `*.browser.test.ts` drive Chromium. */
const PSP_TESTS = 'functions/adapters/psp/*/test/**/*.test.ts';
const PSP_BROWSER_TESTS = 'functions/adapters/psp/*/test/**/*.browser.test.ts';

// `// @module-tag waits` in a file: its time is mostly a wait on a timer, and the sequencer spreads such files
// (test/support/sequencer.ts). Every project is told of the tag: vitest refuses a tag it was not told of.
const tags = [{ name: 'waits', description: 'Mostly waits on a timer: the sequencer spreads these files.' }];

// A test's timeout is a backstop: every wait inside a test has its own deadline, derived from the bound the product
// promises plus the load allowance (test/support/eventually.ts), and fails first, naming what it waited for.
// A test that waits on nothing gets two allowances (timeoutFor()); longer tests name their bounds.
export default defineConfig({
  test: {
    // Files run in processes of their own (each starts its own stack on ephemeral ports, in memory). Much of an
    // integration test is waiting (on queues, timers, child processes), so three at a time keep two cores busy;
    // vitest's default here would be one (cores - 1). docs/testing.md has the measurements.
    maxWorkers: 3,
    // The files of all projects in one queue, the longest first, so that no long file starts late and ends the run
    // alone (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // The folder of the Lambda bundles the files that need them share (test/support/shared-bundles.ts).
    globalSetup: ['./test/support/global-setup.ts'],
    projects: [
      // Property tests are CPU-bound: vitest's 5 s default is too tight beside a busy core.
      // Unit and infra files share their worker's modules (no stack, no process-wide state to leak): importing
      // aws-cdk-lib, zod and the domain once per worker, not once per file, halves these projects' CPU
      // (docs/testing.md#speed).
      {
        test: {
          name: 'unit',
          tags,
          include: ['test/unit/**/*.test.ts'],
          env,
          testTimeout: timeoutFor(),
          isolate: false,
        },
      },
      // Integration files share their worker's modules too: each local stack builds the functions' clients and
      // configuration again when it starts (functions/once.ts), so a file's stack never sees an earlier one's.
      // The logging tests need a process each: the functions' logger takes its level at import, so in a shared
      // worker an earlier file's logger would hold its level and a test that no personal data is logged would
      // pass on a logger that logs nothing.
      {
        test: {
          name: 'integration',
          tags,
          env,
          // A PSP's own tests live in its folder (docs/orchestration.md#adding-a-psp); those in a browser are the
          // browser project's.
          include: ['test/integration/**/*.test.ts', PSP_TESTS],
          exclude: [...LOGGING_TESTS, PSP_BROWSER_TESTS],
          isolate: false,
          testTimeout: timeoutFor(),
          hookTimeout: timeoutFor(),
        },
      },
      {
        test: {
          name: 'logging',
          tags,
          env,
          include: LOGGING_TESTS,
          testTimeout: timeoutFor(),
          hookTimeout: timeoutFor(),
        },
      },
      // The static checks (Biome, Spectral, tsc), in the same queue as the tests (test/static/static-checks.test.ts).
      {
        test: {
          name: 'static',
          tags,
          include: ['test/static/**/*.test.ts'],
          testTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'infra',
          tags,
          include: ['test/infra/**/*.test.ts'],
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      // Browser files share their worker's modules too (each starts its own stack, as integration files do, and
      // its own browser contexts).
      {
        test: {
          name: 'browser',
          tags,
          env,
          include: ['test/browser/**/*.test.ts', PSP_BROWSER_TESTS],
          isolate: false,
          // One Chromium for the project's files, started only when they run (test/support/chromium-server.ts).
          globalSetup: ['./test/support/chromium-server.ts'],
          testTimeout: timeoutFor(0),
          hookTimeout: timeoutFor(),
        },
      },
    ],
  },
});
