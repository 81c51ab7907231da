import {
  apiKeyRepository,
  pspConnectionRepository,
  signingSecretStore,
} from '../../../functions/dependencies.ts';
import { createConnection } from '../../../functions/domain/connection.ts';
import { DOWN_FOR_MS, FAILURES_BEFORE_DOWN } from '../../../functions/domain/connection-health.ts';
import { issueApiKey } from '../../../functions/use-cases/api-keys.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt, median } from '../bench.ts';
import { NAVIGATION_HEADERS } from '../protocol.ts';
import { visitedCheckout } from './50-checkout-page.ts';

interface Targets {
  /** A link of the bench account: no connection, served by the built-in sandbox (today's checkout). */
  plain: string;
  /** Two connections and a routing rule that matches the link. */
  routed: string;
  /** The same, with the first connection `down`: skipped, the second serves. */
  down: string;
}

/** An account with two sandbox connections and a routing rule; the first one `down` when asked. */
async function routedAccount(server: BenchServer, account: string, firstDown: boolean): Promise<string> {
  const key = await issueApiKey({ keys: apiKeyRepository(), secrets: signingSecretStore() }, account, 'test');
  const repository = pspConnectionRepository();
  const at = Date.now();
  const [first, second] = [0, 1].map((index) =>
    createConnection(
      { account, mode: 'test', provider: 'sandbox', name: `Bench ${index}` },
      'bench/',
      new Date(at + index),
    ),
  );
  if (!first || !second) throw new Error('no connections');
  await repository.create(first);
  await repository.create(second);
  if (firstDown) {
    await repository.updateHealth(first, (health) => ({
      ...health,
      consecutive_failures: FAILURES_BEFORE_DOWN,
      down_until: new Date(Date.now() + 60 * DOWN_FOR_MS).toISOString(),
      revision: health.revision + 1,
    }));
  }
  await repository.putRouting(account, 'test', {
    rules: [{ name: 'euro', when: { currency: ['EUR'] }, then: { priority: [first.id, second.id] } }],
    default: [second.id],
  });
  return visitedCheckout(server, `Bearer ${key.api_key}`);
}

/**
 * `GET /checkout/{id}` with routing (two connections and a matching rule) and with the first connection down,
 * against today's checkout (an account on the built-in sandbox), rounds interleaved. Budget: not slower than
 * 1.2× today's figure, i.e. at least 1/1.2 of its throughput (docs/orchestration.md#failover).
 */
export default {
  serve: async (server) => ({
    plain: await visitedCheckout(server, server.authorization),
    routed: await routedAccount(server, 'bench-routing', false),
    down: await routedAccount(server, 'bench-down', true),
  }),

  async measure(bench) {
    const targets = await bench.serve<Targets>();
    const load = (url: string, durationMs: number) =>
      bench.load({ url, method: 'GET', headers: NAVIGATION_HEADERS, durationMs, okStatuses: [200] });
    for (const url of Object.values(targets)) await load(url, bench.plan.warmupMs / 3);
    const rps: Record<keyof Targets, number[]> = { plain: [], routed: [], down: [] };
    for (let round = 0; round < bench.plan.rounds; round++) {
      for (const name of ['plain', 'routed', 'down'] as const) {
        rps[name].push((await load(targets[name], bench.plan.roundMs)).rps);
      }
    }
    const plain = median(rps.plain);
    for (const [name, label] of [
      ['routed', 'checkout page with routing'],
      ['down', 'checkout page, first connection down'],
    ] as const) {
      const value = median(rps[name]);
      bench.row({
        measure: `${label} (c=${bench.plan.concurrency})`,
        subject: 'GET /checkout/{id}',
        value: `${fmt(value)} req/s (rounds ${rps[name].map((r) => fmt(r)).join(', ')})`,
        baseline: `${fmt(plain)} req/s today (built-in sandbox, no routing)`,
        ratio: value / plain,
        // Not slower than 1.2x: at least 1/1.2 of the throughput, rounded down to two places.
        budget: { min: 0.83 },
      });
    }
    bench.record('checkoutRouting', rps);
  },
} satisfies BenchRow<void, Targets>;
