import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutForSteps } from '../../../../../test/support/eventually.ts';
import { type StartedStack, startLikeNpmStart, stopStarted } from '../../../../../test/support/npm-start.ts';

const execFileAsync = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'payment-links-square-cli-'));
const children: ChildProcess[] = [];
let stack: StartedStack;

/** `npm run psp -- ...` against the stack running on `dataDir`: exit code, stdout and stderr. */
async function psp(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['bin/psp.ts', ...args], {
      env: { ...process.env, DATA_DIR: dataDir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The credentials JSON the CLI stored for a connection. */
function stored(id: string): unknown {
  const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
  const [name] = Object.keys(secrets).filter((key) => key.endsWith(`connections/${id}`));
  return JSON.parse(secrets[name as string] as string);
}

beforeAll(async () => {
  stack = await startLikeNpmStart(dataDir, children);
}, timeoutForSteps(1));
afterAll(async () => {
  await stopStarted(stack.child);
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const squareFlags = (accessToken: string) => [
  '--provider',
  'square',
  '--name',
  'Square',
  '--square-access-token',
  accessToken,
  '--square-location-id',
  'L88917AVBK2S5',
  '--square-signature-key',
  'aK9nR3xT0vQ2mW7pL5sZ1A',
];

describe('npm run psp -- add --provider square', () => {
  it(
    'stores the credentials its flags give, prints the notification address to subscribe, refuses a token of the other mode',
    async () => {
      const token = 'EAAAl0n9Zq3Vx7aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdef';
      const [added, refused] = await Promise.all([
        psp('add', '--account', 'square-shop', '--mode', 'test', ...squareFlags(token)),
        psp(
          'add',
          '--account',
          'square-shop',
          '--mode',
          'live',
          ...squareFlags('sandbox-sq0atb-0123456789abcdef'),
        ),
      ]);
      expect(added.code).toBe(0);
      const id = /(pc_[0-9A-Za-z]{24})/.exec(added.stdout)?.[1] as string;
      expect(added.stdout).toContain(`${stack.baseUrl}/psp/square/notifications/${id}`);
      expect(stored(id)).toEqual({
        access_token: token,
        location_id: 'L88917AVBK2S5',
        signature_key: 'aK9nR3xT0vQ2mW7pL5sZ1A',
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/live-mode Square connection needs a production access token/);

      // A rotated subscription key: the new one, and the old one while Square switches over.
      const rotated = await psp(
        'update-credentials',
        id,
        '--square-signature-key',
        'nEw5ignatureKey0000000A',
        '--square-previous-signature-key',
        'aK9nR3xT0vQ2mW7pL5sZ1A',
      );
      expect(rotated.code).toBe(0);
      expect(rotated.stdout).not.toContain('nEw5ignatureKey0000000A');
      expect(stored(id)).toMatchObject({
        signature_key: 'nEw5ignatureKey0000000A',
        previous_signature_key: 'aK9nR3xT0vQ2mW7pL5sZ1A',
      });
    },
    timeoutForSteps(3),
  );
});
