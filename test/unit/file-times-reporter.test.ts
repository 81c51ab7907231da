import { describe, expect, it } from 'vitest';
import type { ModuleDiagnostic } from 'vitest/node';
import { fileSeconds, timesTable } from '../support/file-times-reporter.ts';

describe('per-file times (npm run test:times)', () => {
  it('count a file’s environment, import, setup files and hooks, not only its tests', () => {
    const diagnostic = {
      environmentSetupDuration: 100,
      prepareDuration: 200,
      collectDuration: 3_000,
      setupDuration: 400,
      duration: 5_000,
    } as ModuleDiagnostic;

    expect(fileSeconds(diagnostic)).toBeCloseTo(8.7);
  });

  it('list the files longest first, a failed one marked, with their sum', () => {
    const table = timesTable([
      { file: 'test/unit/a.test.ts', project: 'unit', tests: 3, seconds: 1.04, passed: true },
      { file: 'test/integration/b.test.ts', project: 'integration', tests: 7, seconds: 42.36, passed: false },
    ]);

    expect(table.split('\n')).toEqual([
      '| file | project | tests | s |',
      '| ---- | ------- | ----: | -: |',
      '| `test/integration/b.test.ts` | integration | 7 | 42.4 (failed) |',
      '| `test/unit/a.test.ts` | unit | 3 | 1.0 |',
      '',
      "2 files, 43 s summed; they run three at a time, so the run's own time is vitest's Duration.",
    ]);
  });
});
