import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { timeoutForSteps } from '../support/eventually.ts';
import { startLikeNpmStart, stopStarted } from '../support/npm-start.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'payment-links-start-'));
const children: ChildProcess[] = [];

const start = () => startLikeNpmStart(dataDir, children);
const stop = stopStarted;

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  it(
    'serves the API with a printed test key, accepts CLI-issued keys at once, and keeps data across restarts',
    async () => {
      const first = await start();
      expect(first.banner).toMatch(/Checkout base\s+http:\/\/127\.0\.0\.1:\d+\/checkout/);
      expect(first.banner).toMatch(/Webhook secret\s+whsec_/);
      // One line to paste, for the port it listens on; no request log or metric line pushes it off the screen.
      expect(first.banner).toContain(
        `export BASE=${first.baseUrl} KEY=${first.apiKey} WEBHOOK_SECRET=whsec_`,
      );

      // The console's one-time sign-in link for the demo admin, and one for any account and role from the CLI.
      const demoLink = /Console\s+(http:\S+\/console\/sign-in\?token=[\w-]{43})\s/.exec(first.banner)?.[1];
      expect((await fetch(demoLink ?? 'http://127.0.0.1:9/')).status).toBe(200);
      const viewerLink = await run(
        process.execPath,
        ['bin/console.ts', 'sign-in-link', '--account', 'cli-co', '--role', 'viewer'],
        { env: { ...process.env, DATA_DIR: dataDir } },
      );
      expect(viewerLink.stdout.trim()).toMatch(
        new RegExp(`^${first.baseUrl}/console/sign-in\\?token=[\\w-]{43}$`),
      );

      const created = await fetch(`${first.baseUrl}/v1/payment-links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: { value: '12.00', currency: 'EUR' },
          description: 'Started like npm start',
        }),
      });
      expect(created.status).toBe(201);
      const link = (await created.json()) as { id: string };

      const { stdout } = await run(
        process.execPath,
        ['bin/keys.ts', 'create', '--account', 'cli-co', '--mode', 'test', '--json'],
        {
          env: { ...process.env, DATA_DIR: dataDir },
        },
      );
      const issued = JSON.parse(stdout) as { api_key: string; key_id: string; webhook_secret: string };
      expect(issued.api_key).toMatch(/^svc_test_/);
      expect(issued.key_id).toMatch(/^key_/);
      expect(issued.webhook_secret).toMatch(/^whsec_/);
      const withCliKey = await fetch(`${first.baseUrl}/v1/payment-links/${link.id}`, {
        headers: { authorization: `Bearer ${issued.api_key}` },
      });
      expect(withCliKey.status).toBe(404); // accepted (not 401), and another account's link is not visible

      const listed = await run(process.execPath, ['bin/keys.ts', 'list', '--account', 'cli-co', '--json'], {
        env: { ...process.env, DATA_DIR: dataDir },
      });
      expect(listed.stdout).toContain(issued.key_id);
      expect(listed.stdout).not.toContain(issued.api_key);

      const rotated = await run(
        process.execPath,
        ['bin/keys.ts', 'rotate-webhook-secret', '--account', 'cli-co', '--mode', 'test', '--json'],
        { env: { ...process.env, DATA_DIR: dataDir } },
      );
      const rotation = JSON.parse(rotated.stdout) as { webhook_secret: string; previous_valid_until: string };
      expect(rotation.webhook_secret).toMatch(/^whsec_/);
      expect(rotation.webhook_secret).not.toBe(issued.webhook_secret);

      await stop(first.child);
      const second = await start();
      expect(second.apiKey).toBe(first.apiKey);
      const reread = await fetch(`${second.baseUrl}/v1/payment-links/${link.id}`, {
        headers: { authorization: `Bearer ${second.apiKey}` },
      });
      expect(reread.status).toBe(200);

      await run(process.execPath, ['bin/keys.ts', 'revoke', issued.key_id], {
        env: { ...process.env, DATA_DIR: dataDir },
      });
      const revoked = await fetch(`${second.baseUrl}/v1/payment-links/${link.id}`, {
        headers: { authorization: `Bearer ${issued.api_key}` },
      });
      expect(revoked.status).toBe(401);
      await stop(second.child);
    },
    timeoutForSteps(7),
  ); // two starts of the stack and five CLI runs
});
