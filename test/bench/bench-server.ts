/**
 * The server side of the benchmark, in its own process (forked by test/bench/run.ts so that neither the
 * benchmark nor the load generator shares its event loop): the local stack, and whatever each row's `serve`
 * sets up beside it (test/bench/bench.ts). Requests arrive over IPC; each gets one answer.
 */
import { join } from 'node:path';
import { apiKeyRepository, signingSecretStore } from '../../functions/dependencies.ts';
import { issueApiKey } from '../../functions/use-cases/api-keys.ts';
import { startLocalStack } from '../../lib/local/local-stack.ts';
import type { BenchRow, BenchServer } from './bench.ts';
import type { BenchReply, BenchRequest } from './protocol.ts';

const ACCOUNT = 'bench';

const send = (message: BenchReply) => process.send?.(message);

// The limiter runs as in production (its cost is part of what is measured), with a limit the load never reaches.
process.env.RATE_LIMIT_REQUESTS = String(1_000_000_000);
const stack = await startLocalStack({ port: 0 });
const issued = await issueApiKey(
  { keys: apiKeyRepository(), secrets: signingSecretStore() },
  ACCOUNT,
  'test',
);
const server: BenchServer = {
  stack,
  account: ACCOUNT,
  baseUrl: stack.baseUrl,
  authorization: `Bearer ${issued.api_key}`,
  webhookSecret: issued.webhook_secret,
  createBody: JSON.stringify({
    amount: { value: '10.00', currency: 'EUR' },
    description: 'Order 1001',
    redirect_url: 'https://shop.example.com/thanks',
    webhook_url: 'https://shop.example.com/webhooks',
    metadata: { order_id: '1001' },
  }),
};

process.on('message', async (message: BenchRequest) => {
  if (message.cmd === 'stop') {
    await stack.stop();
    process.exit(0);
  }
  try {
    if (message.cmd === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'reply', id: message.id, result: (user + system) / 1000 });
      return;
    }
    const row = (await import(join(import.meta.dirname, 'rows', message.row))).default as BenchRow;
    if (!row.serve) throw new Error(`${message.row} has no serve()`);
    send({ type: 'reply', id: message.id, result: await row.serve(server, message.input) });
  } catch (error) {
    send({ type: 'error', id: message.id, message: (error as Error).stack ?? String(error) });
  }
});

const { stack: _stack, account: _account, ...info } = server;
send({ type: 'ready', ...info });
