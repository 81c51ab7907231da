import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, timeoutForSteps } from '../support/eventually.ts';
import { startLikeNpmStart, stopStarted } from '../support/npm-start.ts';
import { type ShellBlock, scriptOf, shellBlocks } from '../support/readme-blocks.ts';

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

/** `npm run listen` as a README server block starts it, on its port, and its output as it grows. */
async function startListen(
  port: string,
  webhookSecret: string,
  secrets: readonly string[],
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(
    process.execPath,
    ['bin/listen.ts', '--port', port, ...secrets.flatMap((secret) => ['--secret', secret])],
    { env: { ...process.env, WEBHOOK_SECRET: webhookSecret }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
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
  return { child, output: () => output };
}

/** The README's blocks between one server block and the next, each part with the server block it follows. */
function parts(blocks: readonly ShellBlock[]): { server: ShellBlock; blocks: ShellBlock[] }[] {
  const result: { server: ShellBlock; blocks: ShellBlock[] }[] = [];
  for (const block of blocks) {
    if (block.tag === 'server') result.push({ server: block, blocks: [] });
    else if (block.tag !== 'example') result.at(-1)?.blocks.push(block);
  }
  return result;
}

/** The variables the README's commands set (`PL=$(...)`), which a later part reads. */
const assignedNames = (blocks: readonly ShellBlock[]) => [
  ...new Set(
    blocks.flatMap((block) => [...block.text.matchAll(/^\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1])),
  ),
];

describe('the README walk-through', () => {
  it(
    'runs as pasted, block after block, against npm start with npm run listen receiving its webhooks and npm start printing no stack trace',
    async () => {
      const blocks = shellBlocks('README.md', 'Walk-through');
      const [first, ...restarts] = parts(blocks);
      const listenPort = /npm run listen -- --port (\d+)/.exec(first?.server.text ?? '')?.[1];
      expect(listenPort, 'the README starts the receiver on a port').toBeDefined();
      expect(first?.server.text).toMatch(/^export BASE=\S+ KEY=\S+ WEBHOOK_SECRET=\S+/m);
      expect(restarts.length, 'the README restarts the receiver with the endpoint secret').toBeGreaterThan(0);

      const stack = await startLikeNpmStart(dataDir, children);
      const exportLine = /^export BASE=(\S+) KEY=(\S+) WEBHOOK_SECRET=(\S+)$/m.exec(stack.banner);
      expect(exportLine, 'the banner has the line to paste').not.toBeNull();
      const [, base, key, webhookSecret] = exportLine as RegExpExecArray;
      expect(base).toBe(stack.baseUrl);
      // The README's commands run as written, on a free port in place of the one it names (4000), so that a
      // receiver already on that port elsewhere on the machine cannot fail the test.
      const port = await freePort();
      const onFreePort = (text: string) => text.replaceAll(`127.0.0.1:${listenPort}/`, `127.0.0.1:${port}/`);
      const received: (() => string)[] = [];
      let listen = await startListen(port, webhookSecret as string, []);
      received.push(listen.output);
      const env = {
        ...process.env,
        BASE: base,
        KEY: key,
        WEBHOOK_SECRET: webhookSecret,
        DATA_DIR: dataDir,
        PATH: [resolve('node_modules/.bin'), process.env.PATH].join(delimiter),
      };
      // Each part runs in a shell of its own; the variables the earlier ones set are carried over, as they stay
      // set in the reader's terminal.
      const variables = join(dataDir, 'variables.sh');
      const shell = async (script: string) =>
        run('bash', ['-c', script], { env, maxBuffer: 16 * 1024 * 1024 }).catch(
          (error: Error & { code?: number; stdout?: string; stderr?: string }) => {
            throw new Error(
              `A README command failed (exit ${error.code}):\n${error.stdout?.slice(-2000)}\n${error.stderr}`,
            );
          },
        );
      let stdout = '';
      const runPart = async (part: { blocks: ShellBlock[] }, index: number) => {
        const names = assignedNames(blocks).join(' ');
        const carried = index === 0 ? '' : `source ${variables}\n`;
        const keep = `\nfor name in ${names}; do declare -p "$name" 2>/dev/null || true; done > ${variables}`;
        stdout += (await shell(carried + onFreePort(scriptOf(part.blocks)) + keep)).stdout;
      };

      expect(onFreePort(scriptOf(first?.blocks ?? []))).toContain(`127.0.0.1:${port}/hooks`);
      await runPart(first as { blocks: ShellBlock[] }, 0);
      for (const [index, restart] of restarts.entries()) {
        // The restart as the block writes it: the same receiver, on the same port, with the secrets it names.
        expect(restart.server.text).toMatch(new RegExp(`npm run listen -- --port ${listenPort} --secret`));
        const names = [...restart.server.text.matchAll(/--secret "\$(\w+)"/g)].map((match) => match[1]);
        const secrets = (
          await shell(`source ${variables}\n${names.map((n) => `echo "$${n}"`).join('\n')}`)
        ).stdout
          .trim()
          .split('\n');
        await stopStarted(listen.child);
        listen = await startListen(port, webhookSecret as string, secrets);
        received.push(listen.output);
        await runPart(restart, index + 1);
      }

      expect(stdout).toContain('on the sandbox: the link is paid');
      expect(stdout).toMatch(/Paid pl_\w+ \(12\.34 EUR\) on the sandbox: the link is paid\n/);
      expect(stdout).toMatch(
        /pl_\w+ declined by the sandbox \(simulated: as --decline asked\): the link is open\n/,
      );

      // The books of the walk-through's payments (section 5): the CSV a spreadsheet reconciles, and its totals.
      expect(stdout).toContain(
        'amount,amount_refunded,refund_status,fee,net,connection_name,metadata.order_id\r\n' +
          '15.00,0.00,none,0.46,14.54,Sandbox B,\r\n' +
          '12.34,0.00,none,,,Built-in sandbox,\r\n' +
          '5.00,5.00,full,,,Built-in sandbox,\r\n' +
          '10.00,4.00,partial,,,Built-in sandbox,1001\r\n',
      );
      expect(stdout).toContain(
        '"currencies":[{"currency":"EUR","count":4,"gross":"42.34","refunded":"9.00","fees":"0.46","net":"32.88","payments_without_fee":3}]',
      );

      const receiver = () => received.map((output) => output()).join('');
      // The first link's webhook reaches the receiver, which verifies it with the banner's secret; the
      // endpoint's, after the restart, with the endpoint's own.
      await eventually(
        () =>
          /POST \/hooks {2}payment_link\.paid {2}evt_\S+ {2}verified \(WEBHOOK_SECRET\)/.test(receiver()) &&
          /POST \/all {2}payment_link\.paid {2}evt_\S+ {2}verified \(--secret #1\)/.test(receiver()),
        { what: 'the verified payment_link.paid webhooks of the link and of the endpoint' },
      );
      expect(receiver()).not.toMatch(/NOT VERIFIED/);

      // What npm start printed meanwhile: one line for each failure the walk-through expects (connection A's),
      // none for the answers (422, 409), and no stack trace.
      const terminal = stack.output().slice(stack.banner.length).split('\n').filter(Boolean);
      expect(terminal.some((line) => line.includes('PSP session creation failed'))).toBe(true);
      expect(terminal.filter((line) => /"stack"|^\s+at /.test(line))).toEqual([]);
      expect(terminal.filter((line) => !line.startsWith('{"level":"WARN"'))).toEqual([]);
      await stopStarted(stack.child);
    },
    timeoutForSteps(8),
  );
});
