import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../../functions/clients/dynamodb.ts';
import { config } from '../../../functions/config.ts';
import { apiKeyRepository, signingSecretStore } from '../../../functions/dependencies.ts';
import { issueApiKey } from '../../../functions/use-cases/api-keys.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt } from '../bench.ts';
import { budgets } from '../budgets.ts';
import { combineRounds, type LoadResult } from '../load.ts';
import { createLinkCeiling } from './30-create-link.ts';

interface Targets {
  url: string;
  authorization: string;
  ceilingUrl: string;
}

/**
 * A tenant over its limit: a key whose windows (the default 60 s) for the next 30 minutes already hold the
 * whole limit, so every request it makes is refused, as in a flood from a misbehaving merchant.
 */
async function rateLimitedTarget(server: BenchServer): Promise<Targets> {
  const account = `${server.account}-flood`;
  const flooder = await issueApiKey(
    { keys: apiKeyRepository(), secrets: signingSecretStore() },
    account,
    'test',
  );
  const { RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS } = config();
  const first = Math.floor(Date.now() / 1000 / RATE_LIMIT_WINDOW_SECONDS) * RATE_LIMIT_WINDOW_SECONDS;
  for (let windowStart = first; windowStart < first + 1800; windowStart += RATE_LIMIT_WINDOW_SECONDS) {
    await documentClient().send(
      new PutCommand({
        TableName: server.stack.tableName,
        Item: {
          ...keys.rateWindow(account, 'test', windowStart),
          count: RATE_LIMIT_REQUESTS,
          ttl: windowStart + RATE_LIMIT_WINDOW_SECONDS + 60,
        },
      }),
    );
  }
  const url = `${server.baseUrl}/v1/payment-links`;
  const probe = await fetch(url, { headers: { authorization: `Bearer ${flooder.api_key}` } });
  await probe.arrayBuffer();
  if (probe.status !== 429) throw new Error(`the spent tenant was answered ${probe.status}`);
  return { url, authorization: `Bearer ${flooder.api_key}`, ceilingUrl: await createLinkCeiling(server) };
}

/** 429s to a tenant whose window is spent, against the create-link ceiling (one PutItem), ABBA rounds. */
export default {
  serve: (server) => rateLimitedTarget(server),

  async measure(bench) {
    const target = await bench.serve<Targets>();
    const { authorization, createBody } = await bench.server();
    const { warmupMs, roundMs, rounds, concurrency } = bench.plan;
    const reject = (durationMs: number) =>
      bench.load({
        url: target.url,
        method: 'GET',
        headers: { authorization: target.authorization },
        durationMs,
        okStatuses: [429],
      });
    const ceiling = (durationMs: number) =>
      bench.load({
        url: target.ceilingUrl,
        method: 'POST',
        headers: { authorization },
        body: createBody,
        durationMs,
        okStatuses: [201],
      });
    await reject(warmupMs);
    const runs: { rejected: LoadResult[]; ceiling: LoadResult[] } = { rejected: [], ceiling: [] };
    for (let index = 0; index < rounds; index++) {
      const order = index % 2 === 0 ? (['ceiling', 'rejected'] as const) : (['rejected', 'ceiling'] as const);
      for (const side of order) runs[side].push(await (side === 'ceiling' ? ceiling : reject)(roundMs));
    }
    const rejected = combineRounds(runs.rejected);
    const put = combineRounds(runs.ceiling);
    const describe = (load: ReturnType<typeof combineRounds>) =>
      `${fmt(load.rps)} req/s, p50 ${fmt(load.p50Ms, 1)} ms, p99 ${fmt(load.p99Ms, 1)} ms${load.errors ? `, ${load.errors} errors` : ''}`;
    bench.row({
      measure: `429 over the limit (c=${concurrency})`,
      subject: 'GET /v1/payment-links',
      value: describe(rejected),
      baseline: describe(put),
      ratio: rejected.rps / put.rps,
      budget: { min: budgets.rejectedThroughput },
    });
    bench.record('rateLimited', { rejected, ceiling: put, rounds: runs });
  },
} satisfies BenchRow<void, Targets>;
