/**
 * `npm run bench:memory [-- --minutes <m>] [-- --rate <links per second>] [-- --json <file>]`: whether the local stack's memory
 * stays bounded under a steady load (docs/performance.md#memory-of-the-local-stack). Starts the local stack as
 * `npm start` does, on a fresh data folder (the embedded store on disk, as a developer runs it), in this
 * process, then for the given time creates links at a steady rate and opens each one's checkout page (which
 * opens a sandbox session and reads the link's payments). Every sample is taken after a full garbage
 * collection, so that the JavaScript heap counts what is retained, not what is merely not yet collected; the
 * rest of the resident set (RSS) is native memory: the embedded store's LevelDB, buffers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { apiKeyRepository, signingSecretStore } from '../../functions/dependencies.ts';
import { issueApiKey } from '../../functions/use-cases/api-keys.ts';
import { startLocalStack } from '../../lib/local/local-stack.ts';
import { NAVIGATION_HEADERS } from './protocol.ts';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '10' },
    json: { type: 'string' },
  },
});
const durationMs = Number(args.minutes) * 60_000;
const rate = Number(args.rate);
const SAMPLE_MS = 10_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

const dataDir = mkdtempSync(join(tmpdir(), 'memory-bench-'));
// The limiter runs as in production, with a limit the load never reaches.
process.env.RATE_LIMIT_REQUESTS = String(1_000_000_000);
const stack = await startLocalStack({ port: 0, dataDir });
const issued = await issueApiKey(
  { keys: apiKeyRepository(), secrets: signingSecretStore() },
  'memory',
  'test',
);
const authorization = `Bearer ${issued.api_key}`;

let created = 0;
let failed = 0;
async function createAndCheckout(): Promise<void> {
  const response = await fetch(`${stack.baseUrl}/v1/payment-links`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: { value: '10.00', currency: 'EUR' },
      description: `Order ${created}`,
      webhook_url: 'https://shop.example.com/webhooks',
      metadata: { order_id: String(created) },
    }),
  });
  if (response.status !== 201) {
    failed++;
    await response.arrayBuffer();
    return;
  }
  const { id } = (await response.json()) as { id: string };
  created++;
  const checkout = await fetch(`${stack.baseUrl}/checkout/${id}`, {
    redirect: 'manual',
    headers: NAVIGATION_HEADERS,
  });
  await checkout.arrayBuffer();
  if (checkout.status >= 400) failed++;
}

const samples: { seconds: number; links: number; rssMb: number; heapMb: number; nativeMb: number }[] = [];
const started = Date.now();
const sample = () => {
  gc();
  const { rss, heapTotal } = process.memoryUsage();
  const { heapUsed } = process.memoryUsage();
  const entry = {
    seconds: Math.round((Date.now() - started) / 1000),
    links: created,
    rssMb: mb(rss),
    heapMb: mb(heapUsed),
    nativeMb: mb(rss - heapTotal),
  };
  samples.push(entry);
  console.error(
    `${entry.seconds}s  ${entry.links} links  RSS ${entry.rssMb} MB  heap ${entry.heapMb} MB  outside the heap ${entry.nativeMb} MB`,
  );
};
sample();
const sampler = setInterval(sample, SAMPLE_MS);
const inFlight = new Set<Promise<void>>();
// A steady rate: one start every 1/rate s, whatever the answers' latency (at most 50 at once).
for (let next = started; Date.now() - started < durationMs; next += 1000 / rate) {
  const wait = next - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  if (inFlight.size >= 50) await Promise.race(inFlight);
  const request = createAndCheckout().catch(() => {
    failed++;
  });
  inFlight.add(request);
  void request.finally(() => inFlight.delete(request));
}
await Promise.all(inFlight);
clearInterval(sampler);
sample();
await stack.stop();
rmSync(dataDir, { recursive: true, force: true });

type Sample = (typeof samples)[number];
/** Growth per stored link between two samples, in KB. */
const perLink = (from: Sample, to: Sample, figure: 'rssMb' | 'heapMb' | 'nativeMb') =>
  Math.round((((to[figure] - from[figure]) * 1024) / Math.max(1, to.links - from.links)) * 100) / 100;
// The first minute warms up (code compiled, caches filled); growth is judged after it.
const warm = (samples.find((entry) => entry.seconds >= 60) ?? samples[0]) as Sample;
const half = samples[Math.floor((samples.indexOf(warm) + samples.length) / 2)] as Sample;
const last = samples.at(-1) as Sample;
const peak = Math.max(...samples.map((entry) => entry.rssMb));
const report = {
  minutes: Number(args.minutes),
  rate,
  links: created,
  failed,
  rssMb: { warm: warm.rssMb, half: half.rssMb, end: last.rssMb, peak },
  kbPerLinkAfterWarmUp: Object.fromEntries(
    (['rssMb', 'heapMb', 'nativeMb'] as const).map((figure) => [
      figure,
      { firstHalf: perLink(warm, half, figure), secondHalf: perLink(half, last, figure) },
    ]),
  ),
  samples,
};
if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
// On stderr: the stack's own log lines and metrics are on stdout, as on Lambda.
const { samples: _samples, ...summary } = report;
console.error(JSON.stringify(summary, null, 2));
