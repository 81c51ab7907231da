import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutForSteps } from '../support/eventually.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { type StartedStack, startLikeNpmStart, stopStarted } from '../support/npm-start.ts';

const execFileAsync = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'payment-links-psp-cli-'));
const children: ChildProcess[] = [];
let stack: StartedStack;

/**
 * `npm run psp -- ...` against the stack running on `dataDir`: exit code, stdout and stderr. A run is a process
 * of its own that loads the SDK: each is a step of its test (`timeoutForSteps`).
 */
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

/** A console page, read as an admin of `account` signed in with `npm run console -- sign-in-link`. */
async function adminPage(account: string, path: string): Promise<string> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ['bin/console.ts', 'sign-in-link', '--account', account, '--role', 'admin'],
    { env: { ...process.env, DATA_DIR: dataDir } },
  );
  const token = new URL(stdout.trim()).searchParams.get('token') ?? '';
  const signedIn = await httpRequest(`${stack.baseUrl}/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  const cookie = String([signedIn.headers['set-cookie']].flat()[0]).split(';')[0] ?? '';
  return (await httpRequest(`${stack.baseUrl}${path}`, { headers: { cookie } })).text;
}

beforeAll(async () => {
  stack = await startLikeNpmStart(dataDir, children);
}, timeoutForSteps(1));
afterAll(async () => {
  await stopStarted(stack.child);
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run psp', () => {
  it(
    'adds connections, lists them oldest first, disables, enables and removes them',
    async () => {
      const first = await psp(
        'add',
        '--account',
        'cli-shop',
        '--mode',
        'test',
        '--provider',
        'sandbox',
        '--name',
        'Sandbox A',
        '--simulate',
        'fail',
        '--json',
      );
      expect(first.code).toBe(0);
      const { connection_id: firstId } = JSON.parse(first.stdout);
      expect(firstId).toMatch(/^pc_[0-9A-Za-z]{24}$/);
      const second = JSON.parse(
        (
          await psp(
            'add',
            '--account',
            'cli-shop',
            '--mode',
            'test',
            '--provider',
            'sandbox',
            '--name',
            'Sandbox B',
            '--json',
          )
        ).stdout,
      );

      const listed = JSON.parse((await psp('list', '--account', 'cli-shop', '--json')).stdout);
      expect(listed.map((row: { id: string }) => row.id)).toEqual([firstId, second.connection_id]);
      expect(listed[0]).toMatchObject({
        provider: 'sandbox',
        name: 'Sandbox A',
        enabled: true,
        simulate: 'fail',
      });
      expect(listed[1]).toMatchObject({ simulate: 'ok', secret_name: null });

      expect((await psp('disable', firstId)).code).toBe(0);
      expect(JSON.parse((await psp('list', '--account', 'cli-shop', '--json')).stdout)[0].enabled).toBe(
        false,
      );
      expect((await psp('enable', firstId)).code).toBe(0);
      expect(JSON.parse((await psp('list', '--account', 'cli-shop', '--json')).stdout)[0].enabled).toBe(true);
      expect((await psp('remove', firstId)).code).toBe(0);
      const after = JSON.parse((await psp('list', '--account', 'cli-shop', '--json')).stdout);
      expect(after.map((row: { id: string }) => row.id)).toEqual([second.connection_id]);
      expect((await psp('disable', firstId)).code).toBe(2);
    },
    timeoutForSteps(11),
  );

  it(
    'refuses to remove a connection a payment is still pending through (exit 1, naming it), and removes it once paid',
    async () => {
      const added = await psp(
        'add',
        '--account',
        'acct_demo',
        '--mode',
        'test',
        '--provider',
        'sandbox',
        '--name',
        'In use',
        '--json',
      );
      const { connection_id: id } = JSON.parse(added.stdout);
      const created = await fetch(`${stack.baseUrl}/v1/payment-links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: { value: '5.00', currency: 'EUR' }, connections: [id] }),
      });
      const link = (await created.json()) as { id: string; checkout_url: string };
      const page = await navigate(link.checkout_url);
      const sessionId = /sandbox\/checkout\/([^"/?]+)/.exec(page.text)?.[1];
      expect(sessionId).toBeDefined();

      const refused = await psp('remove', id);

      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(`${id} still has 1 pending payment \\(pay_\\w+ of ${link.id}\\)`),
      );
      expect(refused.stderr).toContain(`npm run psp -- disable ${id}`);
      const listed = JSON.parse((await psp('list', '--account', 'acct_demo', '--json')).stdout);
      expect(listed.map((row: { id: string }) => row.id)).toContain(id);

      await httpRequest(`${stack.baseUrl}/sandbox/checkout/${sessionId}/pay`, { method: 'POST' });
      const removed = await psp('remove', id);

      expect(removed.code).toBe(0);
      expect(removed.stdout).toContain(`${id} removed.`);
      const key = await execFileAsync(
        process.execPath,
        ['bin/keys.ts', 'create', '--account', 'acct_demo', '--mode', 'test', '--json'],
        { env: { ...process.env, DATA_DIR: dataDir } },
      );
      // Each change is in the account's audit log, naming the operator: added, refused while pending, removed; a
      // key created with `npm run keys` too.
      const audit = await adminPage('acct_demo', '/console/audit');
      const operator = `command line ${userInfo().username}@${hostname()}`;
      const entries = [
        ...audit.matchAll(
          new RegExp(
            `<td>${operator}</td><td>[^<]+<code>connection\\.manage</code></td>\\s*<td>connection ${id}</td><td>test</td><td>[^<]+</td><td>([^<]+)</td>`,
            'g',
          ),
        ),
      ];
      expect(entries.map((entry) => entry[1])).toEqual(['done', 'failed (invalid_state)', 'done']);
      expect(audit).toContain(
        `<td>${operator}</td><td>API keys changed <code>keys.manage</code></td>\n<td>API key ${JSON.parse(key.stdout).key_id}</td>`,
      );
    },
    timeoutForSteps(10),
  );

  it(
    'adds a PayPal connection of its mode’s environment, prints its notification address, and refuses the other environment',
    async () => {
      const addLivePaypal = (...environment: string[]) =>
        psp(
          'add',
          '--account',
          'cli-paypal',
          '--mode',
          'live',
          '--provider',
          'paypal',
          '--name',
          'PayPal',
          '--paypal-client-id',
          'AeA1QIZXiflr1_-r0U2UbW',
          '--paypal-client-secret',
          'ECYYrrSHdKfk_Q0Edvzd',
          '--paypal-webhook-id',
          '8PT597110X687430L',
          ...environment,
        );
      const refused = await addLivePaypal('--paypal-environment', 'sandbox');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/live-mode PayPal connection needs the live environment/);
      const added = await addLivePaypal();
      expect(added.code).toBe(0);
      const id = /(pc_[0-9A-Za-z]{24})/.exec(added.stdout)?.[1];
      expect(added.stdout).toContain(`${stack.baseUrl}/psp/paypal/notifications/${id}`);
      const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
      const [name] = Object.keys(secrets).filter((key) => key.endsWith(`connections/${id}`));
      expect(JSON.parse(secrets[name as string])).toEqual({
        client_id: 'AeA1QIZXiflr1_-r0U2UbW',
        client_secret: 'ECYYrrSHdKfk_Q0Edvzd',
        webhook_id: '8PT597110X687430L',
      });
    },
    timeoutForSteps(2),
  );

  it(
    'stores Stripe credentials in the 0600 secrets file under the connection, and prints its notification address',
    async () => {
      const added = await psp(
        'add',
        '--account',
        'cli-shop',
        '--mode',
        'live',
        '--provider',
        'stripe',
        '--name',
        'Stripe EU',
        '--stripe-secret-key',
        'sk_live_abc',
        '--stripe-webhook-secret',
        'whsec_def',
      );
      expect(added.code).toBe(0);
      const id = /(pc_[0-9A-Za-z]{24})/.exec(added.stdout)?.[1];
      expect(added.stdout).toContain(`${stack.baseUrl}/psp/stripe/notifications/${id}`);
      const file = join(dataDir, 'secrets.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const secrets = JSON.parse(readFileSync(file, 'utf8'));
      const [name] = Object.keys(secrets).filter((key) => key.endsWith(`connections/${id}`));
      expect(JSON.parse(secrets[name as string])).toEqual({
        secret_key: 'sk_live_abc',
        webhook_secret: 'whsec_def',
      });
    },
    timeoutForSteps(1),
  );

  it(
    'replaces the credentials a connection stores, field by field, checked against its mode, printing no secret',
    async () => {
      const added = await psp(
        'add',
        '--account',
        'cli-update',
        '--mode',
        'test',
        '--provider',
        'paypal',
        '--name',
        'PayPal',
        '--paypal-client-id',
        'AeA1QIZXiflr1_-r0U2UbW',
        '--paypal-client-secret',
        'ECYYrrSHdKfk_Q0Edvzd',
        '--paypal-webhook-id',
        'PENDINGWEBHOOK01',
        '--json',
      );
      const { connection_id: id } = JSON.parse(added.stdout);
      const stored = () => {
        const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
        const [name] = Object.keys(secrets).filter((key) => key.endsWith(`connections/${id}`));
        return JSON.parse(secrets[name as string]);
      };

      // PayPal's webhook id is known only once the connection's notification address is configured at PayPal.
      const updated = await psp('update-credentials', id, '--paypal-webhook-id', '8PT597110X687430L');
      const [otherMode, otherPsp, unknown] = await Promise.all([
        psp('update-credentials', id, '--paypal-environment', 'live'),
        psp('update-credentials', id, '--stripe-webhook-secret', 'whsec_x'),
        psp('update-credentials', 'pc_NoSuchConnection000000000', '--paypal-webhook-id', '8PT597110X687430L'),
      ]);

      expect(updated.code).toBe(0);
      expect(updated.stdout).toContain(`${id} credentials updated (webhook_id)`);
      expect(updated.stdout).not.toContain('8PT597110X687430L');
      expect(stored()).toEqual({
        client_id: 'AeA1QIZXiflr1_-r0U2UbW',
        client_secret: 'ECYYrrSHdKfk_Q0Edvzd',
        webhook_id: '8PT597110X687430L',
      });
      expect([otherMode.code, otherPsp.code, unknown.code]).toEqual([2, 2, 2]);
      expect(otherMode.stderr).toMatch(/test-mode PayPal connection needs the sandbox environment/);
      expect(otherPsp.stderr).toMatch(/--stripe-webhook-secret is not a flag of paypal connections/);
      expect(unknown.stderr).toMatch(/No connection pc_NoSuchConnection000000000/);
      expect(stored().webhook_id).toBe('8PT597110X687430L');
    },
    timeoutForSteps(5),
  );

  it(
    'adds a Checkout.com connection with its secret key, processing channel and signature key, checked against the mode',
    async () => {
      const checkoutFlags = (secretKey: string) => [
        '--provider',
        'checkout_com',
        '--name',
        'Checkout.com',
        '--checkout-com-secret-key',
        secretKey,
        '--checkout-com-processing-channel-id',
        'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
        '--checkout-com-signature-key',
        'signature-key',
      ];
      const sandboxKey = 'sk_sbox_m73dzbpy7cf3gfd46xr4yj5xo4e';
      const [added, refused] = await Promise.all([
        psp('add', '--account', 'cli-shop', '--mode', 'test', ...checkoutFlags(sandboxKey)),
        psp('add', '--account', 'cli-shop', '--mode', 'live', ...checkoutFlags(sandboxKey)),
      ]);
      expect(added.code).toBe(0);
      const id = /(pc_[0-9A-Za-z]{24})/.exec(added.stdout)?.[1];
      expect(added.stdout).toContain(`${stack.baseUrl}/psp/checkout_com/notifications/${id}`);
      const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
      const [name] = Object.keys(secrets).filter((key) => key.endsWith(`connections/${id}`));
      expect(JSON.parse(secrets[name as string])).toEqual({
        secret_key: sandboxKey,
        processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
        signature_key: 'signature-key',
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/live \(sk_…\) secret key/);
    },
    timeoutForSteps(2),
  );

  it(
    'refuses credentials of the other mode, a live sandbox and a simulation on a real PSP, storing nothing',
    async () => {
      const refusals = await Promise.all([
        psp(
          'add',
          '--account',
          'cli-refused',
          '--mode',
          'live',
          '--provider',
          'stripe',
          '--name',
          'x',
          '--stripe-secret-key',
          'sk_test_abc',
          '--stripe-webhook-secret',
          'whsec_def',
        ),
        psp(
          'add',
          '--account',
          'cli-refused',
          '--mode',
          'test',
          '--provider',
          'stripe',
          '--name',
          'x',
          '--stripe-secret-key',
          'sk_live_abc',
          '--stripe-webhook-secret',
          'whsec_def',
        ),
        psp('add', '--account', 'cli-refused', '--mode', 'live', '--provider', 'sandbox', '--name', 'x'),
        psp(
          'add',
          '--account',
          'cli-refused',
          '--mode',
          'test',
          '--provider',
          'stripe',
          '--name',
          'x',
          '--simulate',
          'fail',
        ),
        psp('add', '--account', 'cli-refused', '--mode', 'test', '--provider', 'acmepay', '--name', 'x'),
      ]);
      expect(refusals.map((refusal) => refusal.code)).toEqual([2, 2, 2, 2, 2]);
      expect(refusals[0]?.stderr).toMatch(/sk_live_/);
      expect(JSON.parse((await psp('list', '--account', 'cli-refused', '--json')).stdout)).toEqual([]);
    },
    timeoutForSteps(6),
  );

  it(
    'sets fee lines, the most specific replacing its own line, and a sandbox success rate (issue 36)',
    async () => {
      const add = (...extra: string[]) =>
        psp(
          'add',
          '--account',
          'cli-fees',
          '--mode',
          'test',
          '--provider',
          'sandbox',
          '--name',
          'F',
          ...extra,
        );
      const added = await add('--success-rate', '0.7', '--json');
      expect(added.code).toBe(0);
      const { connection_id: id } = JSON.parse(added.stdout);
      expect((await psp('fees', id, '--percent', '1.4', '--fixed', '0.25')).code).toBe(0);
      expect((await psp('fees', id, '--percent', '1.2', '--fixed', '0.2', '--currency', 'EUR')).code).toBe(0);
      expect((await psp('fees', id, '--percent', '1.1', '--fixed', '0.2', '--currency', 'EUR')).code).toBe(0);
      const [listed] = JSON.parse((await psp('list', '--account', 'cli-fees', '--json')).stdout);
      expect(listed).toMatchObject({
        success_rate: 0.7,
        fees: [
          { percent: 1.4, fixed: 0.25 },
          { percent: 1.1, fixed: 0.2, currency: 'EUR' },
        ],
      });
      const refusals = await Promise.all([
        add('--success-rate', '1.5'),
        psp('fees', id, '--percent', 'lots', '--fixed', '0.2'),
        psp('fees', id, '--percent', '1', '--fixed', '0.2', '--method', 'cash'),
      ]);
      expect(refusals.map((refusal) => refusal.code)).toEqual([2, 2, 2]);
    },
    timeoutForSteps(8),
  );
});
