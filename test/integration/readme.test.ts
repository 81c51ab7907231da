import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, timeoutForSteps } from '../support/eventually.ts';
import { startLikeNpmStart, stopStarted } from '../support/npm-start.ts';
import { scriptOf, shellBlocks } from '../support/readme-blocks.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'payment-links-readme-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** A port nothing listens on now: the README's own receiver port may be taken on a shared machine. */
async function freePort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return String(port);
}

/** `npm run listen` as the README's server block starts it, on its port, and its output as it grows. */
async function startListen(port: string, secret: string): Promise<{ output: () => string }> {
  const child = spawn(process.execPath, ['bin/listen.ts', '--port', port], {
    env: { ...process.env, WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`npm run listen exited with ${code}: ${output}`))),
  );
  await Promise.race([
    exited,
    eventually(() => output.includes('Listening for webhooks'), { what: 'listen' }),
  ]);
  return { output: () => output };
}

describe('the README walk-through', () => {
  it(
    'runs as pasted, block after block, against npm start with npm run listen receiving its webhooks',
    async () => {
      const blocks = shellBlocks('README.md', 'Walk-through');
      const servers = blocks
        .filter((block) => block.tag === 'server')
        .map((block) => block.text)
        .join('\n');
      const listenPort = /npm run listen -- --port (\d+)/.exec(servers)?.[1];
      expect(listenPort, 'the README starts the receiver on a port').toBeDefined();
      expect(servers).toMatch(/^export BASE=\S+ KEY=\S+ WEBHOOK_SECRET=\S+/m);

      const stack = await startLikeNpmStart(dataDir, children);
      const exportLine = /^export BASE=(\S+) KEY=(\S+) WEBHOOK_SECRET=(\S+)$/m.exec(stack.banner);
      expect(exportLine, 'the banner has the line to paste').not.toBeNull();
      const [, base, key, webhookSecret] = exportLine as RegExpExecArray;
      expect(base).toBe(stack.baseUrl);
      // The README's commands run as written, on a free port in place of the one it names (4000), so that a
      // receiver already on that port elsewhere on the machine cannot fail the test.
      const port = await freePort();
      const listen = await startListen(port, webhookSecret as string);

      const script = scriptOf(
        blocks.filter((block) => block.tag !== 'server' && block.tag !== 'example'),
      ).replaceAll(`127.0.0.1:${listenPort}/`, `127.0.0.1:${port}/`);
      expect(script).toContain(`127.0.0.1:${port}/hooks`);
      const env = {
        ...process.env,
        BASE: base,
        KEY: key,
        WEBHOOK_SECRET: webhookSecret,
        DATA_DIR: dataDir,
        PATH: [resolve('node_modules/.bin'), process.env.PATH].join(delimiter),
      };
      const ran = await run('bash', ['-c', script], { env, maxBuffer: 16 * 1024 * 1024 }).catch(
        (error: Error & { code?: number; stdout?: string; stderr?: string }) => {
          throw new Error(
            `A README command failed (exit ${error.code}):\n${error.stdout?.slice(-2000)}\n${error.stderr}`,
          );
        },
      );
      expect(ran.stdout).toContain('on the sandbox: the link is paid');

      // The first link's webhook reaches the receiver, which verifies it with the banner's secret.
      await eventually(
        () =>
          /POST \/hooks {2}payment_link\.paid {2}evt_\S+ {2}verified \(WEBHOOK_SECRET\)/.test(
            listen.output(),
          ),
        { what: 'the verified payment_link.paid webhook' },
      );
      expect(listen.output()).not.toMatch(/POST \/hooks .*NOT VERIFIED/);
      await stopStarted(stack.child);
    },
    timeoutForSteps(6),
  );
});
