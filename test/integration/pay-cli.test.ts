import { execFile } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from '../support/connections.ts';
import { timeoutForSteps } from '../support/eventually.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

const execFileAsync = promisify(execFile);
let stack: TestStack;
let key: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run pay -- ...` with `base` (the stack's) as BASE and `apiKey` as KEY: a process of its own, a step of its test. */
async function pay(args: string[], apiKey = key, base = stack.baseUrl): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['bin/pay.ts', ...args], {
      env: { ...process.env, BASE: base, KEY: apiKey },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Run;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function createLink(body: unknown, apiKey = key): Promise<string> {
  const created = await stack.request('POST', '/v1/payment-links', { key: apiKey, body });
  expect(created.status).toBe(201);
  return created.body.id;
}

const link = async (id: string, apiKey = key) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: apiKey })).body;

/** An account whose one connection is a sandbox with these settings, and its key. */
async function accountWithSandbox(
  account: string,
  settings: { simulate?: 'processing'; success_rate?: number },
): Promise<string> {
  await addConnection({ account, mode: 'test', provider: 'sandbox', name: account, ...settings });
  return (await stack.issueKey(account, 'test')).api_key;
}

beforeAll(async () => {
  stack = await startTestStack();
  key = (await stack.issueKey('pay-cli', 'test')).api_key;
});
afterAll(() => stack.stop());

describe('npm run pay', () => {
  it(
    'prints its usage for --help, and one line with the usage for an option it does not take, never a stack trace',
    async () => {
      const help = await pay(['--help']);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^Usage:\n {2}npm run pay -- pl_\.\.\. \[--amount 12\.34\] \[--decline\]/);

      const unknown = await pay(['pl_x', '--amout', '12.34']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr.split('\n')[0]).toMatch(/^Unknown option '--amout'/);
      expect(unknown.stderr).toContain('Usage:');
      expect(unknown.stderr).not.toMatch(/^\s+at /m);

      // A port nothing listens on any more: as when npm start is not running.
      const closed = createServer();
      await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
      const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise((done) => closed.close(done));
      const unreachable = await pay(['pl_x'], key, nowhere);
      expect(unreachable).toMatchObject({ code: 1, stdout: '' });
      expect(unreachable.stderr).toBe(
        `Cannot reach the service at ${nowhere} (ECONNREFUSED): is npm start running, and is BASE its address?\n`,
      );
    },
    timeoutForSteps(3),
  );

  it(
    'pays the amount the buyer types on a link with amount_range, and says why the checkout refuses one',
    async () => {
      const range = { currency: 'EUR', minimum: '1.00', maximum: '50.00' };
      const id = await createLink({ amount_range: range });

      const refused = await pay([id, '--amount', '99']);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toBe('The checkout refused 99: Enter an amount between €1.00 and €50.00.\n');
      expect((await link(id)).status).toBe('open');

      const paid = await pay([id, '--amount', '12.34']);
      expect(paid).toMatchObject({ code: 0, stderr: '' });
      expect(paid.stdout).toBe(`Paid ${id} (12.34 EUR) on the sandbox: the link is paid\n`);
      expect((await link(id)).payment.amount).toEqual({ value: '12.34', currency: 'EUR' });

      const fixed = await createLink({ amount: { value: '10.00', currency: 'EUR' } });
      const notRange = await pay([fixed, '--amount', '12.34']);
      expect(notRange.code).toBe(1);
      expect(notRange.stderr).toBe(
        `${fixed} asks a fixed 10.00 EUR: --amount is for a link with amount_range.\n`,
      );
    },
    timeoutForSteps(3),
  );

  it(
    'pays the suggested amount of a range link when given none, as the form filled in with it does',
    async () => {
      const id = await createLink({
        amount_range: { currency: 'EUR', minimum: '1.00', maximum: '50.00', suggested: '7.50' },
      });
      const paid = await pay([id]);
      expect(paid.stdout).toBe(`Paid ${id} (7.50 EUR) on the sandbox: the link is paid\n`);
    },
    timeoutForSteps(1),
  );

  it(
    'reports a decline by the sandbox as one, with a failing status, and a decline it was asked for as done',
    async () => {
      const declines = await accountWithSandbox('pay-cli-declines', { success_rate: 0 });
      const id = await createLink({ amount: { value: '10.00', currency: 'EUR' } }, declines);

      const declined = await pay([id], declines);
      expect(declined).toMatchObject({ code: 1, stdout: '' });
      expect(declined.stderr).toBe(
        `${id} declined by the sandbox (simulated: its connection's --success-rate): the link is open\n`,
      );

      const asked = await pay([id, '--decline'], declines);
      expect(asked).toMatchObject({ code: 0, stderr: '' });
      expect(asked.stdout).toBe(
        `${id} declined by the sandbox (simulated: as --decline asked): the link is open\n`,
      );
      expect((await link(id, declines)).status).toBe('open');
    },
    timeoutForSteps(2),
  );

  it(
    'reports a payment under way on a processing connection as under way, not as paid',
    async () => {
      const processing = await accountWithSandbox('pay-cli-processing', { simulate: 'processing' });
      const id = await createLink({ amount: { value: '10.00', currency: 'EUR' } }, processing);
      const started = await pay([id], processing);
      expect(started).toMatchObject({ code: 0, stderr: '' });
      expect(started.stdout).toBe(
        `Payment of ${id} (10.00 EUR) under way on the sandbox (simulated processing, it succeeds later): the link is open\n`,
      );
    },
    timeoutForSteps(1),
  );

  it(
    "names each buyer's own payment on a reusable link, whose checkout gives every buyer a session",
    async () => {
      const id = await createLink({ amount: { value: '5.00', currency: 'EUR' }, reusable: true });
      const runs = [await pay([id]), await pay([id, '--decline']), await pay([id])];
      expect(runs.map((run) => run.stdout)).toEqual([
        `Paid ${id} (5.00 EUR) on the sandbox: the link is open\n`,
        `${id} declined by the sandbox (simulated: as --decline asked): the link is open\n`,
        `Paid ${id} (5.00 EUR) on the sandbox: the link is open\n`,
      ]);
      expect((await link(id)).succeeded_payments).toBe(2);
    },
    timeoutForSteps(3),
  );
});
