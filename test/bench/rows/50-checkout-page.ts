import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt } from '../bench.ts';
import { NAVIGATION_HEADERS } from '../protocol.ts';

const handlersDir = join(import.meta.dirname, '..', '..', '..', 'functions', 'handlers');

/** A checkout page URL for an open link whose PSP session exists (the first visit creates it). */
async function checkoutTarget(server: BenchServer): Promise<string | undefined> {
  if (!existsSync(join(handlersDir, 'checkout-page.ts'))) return undefined;
  return visitedCheckout(server, server.authorization);
}

/** An open link created with `authorization`, whose session exists (the first visit opens it), as its checkout URL. */
export async function visitedCheckout(server: BenchServer, authorization: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/v1/payment-links`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: server.createBody,
  });
  if (response.status !== 201) throw new Error(`create-link answered ${response.status}`);
  const { id } = (await response.json()) as { id: string };
  const url = `${server.baseUrl}/checkout/${id}`;
  const first = await fetch(url, { redirect: 'manual', headers: NAVIGATION_HEADERS });
  await first.arrayBuffer();
  if (first.status >= 400) throw new Error(`GET /checkout/{id} answered ${first.status}`);
  return url;
}

/** `GET /checkout/{id}` of an open link whose session exists: throughput only, no baseline. */
export default {
  serve: (server) => checkoutTarget(server),

  async measure(bench) {
    const url = await bench.serve<string | undefined>();
    if (!url) {
      bench.row({
        measure: 'checkout page',
        subject: 'GET /checkout/{id}',
        value: 'n/a: not built yet',
        baseline: '',
      });
      bench.record('checkout', null);
      return;
    }
    const load = (durationMs: number) =>
      bench.load({
        url,
        method: 'GET',
        headers: NAVIGATION_HEADERS,
        durationMs,
        okStatuses: [200, 302, 303],
      });
    await load(bench.plan.warmupMs);
    const checkout = await load(bench.plan.roundMs * bench.plan.rounds);
    bench.row({
      measure: `checkout page (c=${bench.plan.concurrency})`,
      subject: 'GET /checkout/{id}',
      value: `${fmt(checkout.rps)} req/s, p50 ${fmt(checkout.p50Ms, 1)} ms, p99 ${fmt(checkout.p99Ms, 1)} ms${checkout.errors ? `, ${checkout.errors} errors` : ''}`,
      baseline: '',
    });
    bench.record('checkout', checkout);
  },
} satisfies BenchRow<void, string | undefined>;
