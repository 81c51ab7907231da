import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../support/eventually.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

const run = promisify(execFile);
const sdkDir = new URL('../../lib/merchant-sdk/', import.meta.url).pathname;

/** The README's runnable example: the `js` block of "Installing it outside this repository". */
function readmeExample(): string {
  const readme = readFileSync(join(sdkDir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Installing it outside this repository'));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('lib/merchant-sdk/README.md has no js example to run');
  return block;
}

let stack: TestStack;
let folder: string;

beforeAll(async () => {
  stack = await startTestStack();
  folder = mkdtempSync(join(tmpdir(), 'merchant-sdk-package-'));
});
afterAll(async () => {
  await stack.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('the merchant SDK as a package (lib/merchant-sdk/README.md)', () => {
  it(
    'packs, installs from its tarball into an empty project and runs the README example against the local stack',
    async () => {
      // npm pack builds dist/ first (prepack); the repository's node_modules/.bin gives it TypeScript.
      await run('npm', ['pack', '--pack-destination', folder], { cwd: sdkDir });
      const tarball = readdirSync(folder).find((name) => name.endsWith('.tgz'));
      expect(tarball).toBeDefined();
      writeFileSync(
        join(folder, 'package.json'),
        JSON.stringify({ name: 'shop', private: true, type: 'module' }),
      );
      // The two runtime dependencies come from npm's cache when the project's own install has filled it.
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], {
        cwd: folder,
      });
      const installed = join(folder, 'node_modules', '@payment-links', 'merchant-sdk');
      expect(existsSync(join(installed, 'dist', 'index.d.ts'))).toBe(true);
      expect(existsSync(join(installed, 'index.ts'))).toBe(false);
      // Apache-2.0 asks that the licence travel with the work: the tarball carries it.
      expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toBe(
        readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8'),
      );
      expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).license).toBe('Apache-2.0');

      writeFileSync(join(folder, 'example.mjs'), readmeExample());
      const key = await stack.issueKey('sdk-package', 'test');
      const { stdout } = await run(process.execPath, ['example.mjs'], {
        cwd: folder,
        env: { ...process.env, BASE: stack.baseUrl, KEY: key.api_key },
      });
      const [id, status, checkoutUrl] = stdout.trim().split(' ');
      expect(status).toBe('open');
      expect(checkoutUrl).toContain(id);
      const stored = await fetch(`${stack.baseUrl}/v1/payment-links/${id}`, {
        headers: { authorization: `Bearer ${key.api_key}` },
      });
      expect(stored.status).toBe(200);
    },
    timeoutFor(60_000),
  );
});
