import { defineConfig } from 'vitest/config';

/** One vitest project per kind of test (unit, integration, infra, browser), each runnable alone; `npm test` runs them all. */
// The functions' JSON request logs and metric lines would drown the report; warnings and errors still show.
// test/integration/logging.test.ts turns INFO back on, test/integration/metrics.test.ts the metrics.
const env = { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'true' };

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], env } },
      {
        test: {
          name: 'integration',
          env,
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'browser',
          env,
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
