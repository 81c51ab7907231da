import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { credentialFields } from '../../functions/adapters/psp/kit/credentials.ts';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';
import { timeoutForSteps } from '../support/eventually.ts';

const execFileAsync = promisify(execFile);

/** A CLI of bin/ as a process of its own, with `env` added: exit code, stdout and stderr. */
async function cli(file: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [`bin/${file}`, ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

/** Every command a reader types (README.md): `npm start`, the receiver and the administration CLIs. */
const COMMANDS = ['local.ts', 'listen.ts', 'keys.ts', 'psp.ts', 'backfill-books.ts', 'pay.ts'];

describe('the CLIs', () => {
  it(
    'print their usage for --help and, for an option they do not take, why and their usage, never a stack trace',
    async () => {
      for (const command of COMMANDS) {
        const help = await cli(command, ['--help']);
        expect(help, command).toMatchObject({ code: 0, stderr: '' });
        expect(help.stdout, command).toMatch(/^Usage:\n {2}npm (start|run \S+)/);

        const unknown = await cli(command, ['--no-such-option']);
        expect(unknown.code, command).toBe(2);
        expect(unknown.stderr.split('\n')[0], command).toMatch(/^Unknown option '--no-such-option'/);
        expect(unknown.stderr, command).toContain('\n\nUsage:\n');
        expect(unknown.stderr, command).not.toMatch(/^\s+at /m);
      }
    },
    timeoutForSteps(2 * COMMANDS.length),
  );

  it(
    'npm run psp lists every registered PSP and the credential flags its descriptor gives, with their help',
    async () => {
      const help = (await cli('psp.ts', ['--help'])).stdout;
      for (const descriptor of PSP_DESCRIPTORS) {
        expect(help).toContain(descriptor.id);
        for (const { flag, description, optional } of credentialFields(descriptor)) {
          expect(help).toContain(`${optional ? '[' : ''}--${flag} …${optional ? ']' : ''}  ${description}`);
        }
      }
    },
    timeoutForSteps(1),
  );

  it(
    'the receiver says in one line that a secret it is given is none, as an empty $EP_SECRET is',
    async () => {
      const empty = await cli('listen.ts', ['--port', '0', '--secret', ''], {
        WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      });
      expect(empty).toMatchObject({
        code: 2,
        stdout: '',
        stderr: "--secret #1 is not a webhook secret (whsec_...): Secret can't be empty.\n",
      });
    },
    timeoutForSteps(1),
  );
});
