import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * The static checks of `npm test`, each the npm script a developer runs alone: Biome (lint, format, import rules),
 * Spectral on the OpenAPI document, the TypeScript compiler. They ran before vitest, one after another, for about
 * 15 s of a run's wall time while a core sat half idle; as a file of the suite, started among the first
 * (test/support/sequencer.ts), their 20 CPU-s fill the time other files leave idle (docs/testing.md#speed).
 */
const root = join(import.meta.dirname, '..', '..');
const npmScripts = ['lint', 'lint:openapi', 'typecheck'] as const;

it.concurrent.each(npmScripts)('npm run %s passes', async (script) => {
  const outcome = await promisify(execFile)('npm', ['run', '--silent', script], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    () => ({ code: 0, output: '' }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
  // On failure the tool's own report is the message: what to fix, as `npm run <script>` prints it.
  expect(outcome.code, outcome.output).toBe(0);
});
