/**
 * `npm run bench [-- --quick] [-- --json <file>] [-- --concurrency <n>]`: the performance budgets of issue 6,
 * each measured against a baseline in the same run (see docs/performance.md).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { budgets } from './budgets.ts';
import { buildBundles } from './bundles.ts';
import { measureColdImports, pairedCpuRatio } from './cold-import.ts';
import { type LoadResult, runLoad } from './load.ts';
import { type BenchReply, type BenchRequest, NAVIGATION_HEADERS } from './protocol.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
  },
});
const quick = args.quick ?? false;
const concurrency = Number(args.concurrency);
const plan = quick
  ? { warmupMs: 500, roundMs: 1000, rounds: 2, importRounds: 5, webhooks: 200 }
  : { warmupMs: 2000, roundMs: 4000, rounds: 4, importRounds: 15, webhooks: 2000 };

interface Row {
  measure: string;
  subject: string;
  value: string;
  baseline: string;
  ratio: number | undefined;
  budget: string;
  ok: boolean | undefined;
}
const rows: Row[] = [];
const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  quick,
  concurrency,
  budgets,
};

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const kb = (bytes: number) => `${fmt(bytes / 1024, 1)} KB`;

function row(
  measure: string,
  subject: string,
  value: string,
  baseline: string,
  ratio?: number,
  budget?: { max?: number; min?: number },
) {
  const ok =
    ratio === undefined || !budget
      ? undefined
      : budget.max !== undefined
        ? ratio <= budget.max
        : ratio >= (budget.min ?? 0);
  rows.push({
    measure,
    subject,
    value,
    baseline,
    ratio,
    budget: budget ? (budget.max !== undefined ? `≤ ${budget.max}×` : `≥ ${budget.min}×`) : '',
    ok,
  });
}

// --- Bundles and cold imports -------------------------------------------------------------------------------
const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
console.error(`building bundles in ${outdir}`);
const bundles = await buildBundles(outdir);
const bundleNamed = (name: string | undefined) => bundles.find((bundle) => bundle.name === name);
for (const bundle of bundles.filter((b) => b.baseline !== undefined)) {
  const baseline = bundleNamed(bundle.baseline);
  if (!baseline) throw new Error(`no baseline bundle ${bundle.baseline}`);
  const ratio = Math.max(bundle.bytes / baseline.bytes, bundle.gzipBytes / baseline.gzipBytes);
  row(
    'bundle (min / gzip)',
    bundle.name,
    `${kb(bundle.bytes)} / ${kb(bundle.gzipBytes)}`,
    `${kb(baseline.bytes)} / ${kb(baseline.gzipBytes)}`,
    ratio,
    { max: budgets.bundleSize },
  );
}
report.bundles = bundles.map(({ file: _file, inputs: _inputs, ...sizes }) => sizes);

console.error(`cold imports: ${plan.importRounds} fresh processes per bundle, interleaved`);
const imports = measureColdImports(bundles, plan.importRounds);
const importTime = (time: { wallMs: number; cpuMs: number }) =>
  `${fmt(time.cpuMs, 1)} ms CPU, ${fmt(time.wallMs, 1)} ms wall`;
for (const [name, time] of imports) {
  const baselineName = bundleNamed(name)?.baseline;
  const baselineImport = baselineName === undefined ? undefined : imports.get(baselineName);
  if (!baselineImport) continue;
  row(
    'cold import (median)',
    name,
    importTime(time),
    importTime(baselineImport),
    pairedCpuRatio(time, baselineImport),
    {
      max: budgets.coldImport,
    },
  );
}
report.coldImportMs = Object.fromEntries(imports);
rmSync(outdir, { recursive: true, force: true });

// --- The local stack over HTTP ----------------------------------------------------------------------------
const server: ChildProcess = fork(join(import.meta.dirname, 'bench-server.ts'), [], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const replies: BenchReply[] = [];
let wake: (() => void) | undefined;
server.on('message', (message: BenchReply) => {
  replies.push(message);
  wake?.();
});
server.on('exit', (code) => {
  if (code) {
    console.error(`bench server exited with ${code}`);
    process.exit(1);
  }
});
async function reply<T extends BenchReply['type']>(type: T): Promise<Extract<BenchReply, { type: T }>> {
  for (;;) {
    const index = replies.findIndex((message) => message.type === type || message.type === 'error');
    const found = replies[index];
    if (found) {
      replies.splice(index, 1);
      if (found.type === 'error') throw new Error(`bench server: ${found.message}`);
      return found as Extract<BenchReply, { type: T }>;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}
const ask = (request: BenchRequest) => server.send(request);

try {
  const ready = await reply('ready');
  const createLoad = (url: string, durationMs: number) =>
    runLoad({
      url,
      method: 'POST',
      headers: { authorization: ready.authorization },
      body: () => ready.createBody,
      concurrency,
      durationMs,
      ok: (status) => status === 201,
    });

  console.error(`create-link: warm-up, then ${plan.rounds} × ${plan.roundMs} ms per target, interleaved`);
  await createLoad(ready.ceilingUrl, plan.warmupMs);
  await createLoad(ready.createUrl, plan.warmupMs);
  const ceilingRuns: LoadResult[] = [];
  const stackRuns: LoadResult[] = [];
  // ABBA order: the table grows as rounds run, so neither target always goes first.
  for (let round = 0; round < plan.rounds; round++) {
    const ceilingFirst = round % 2 === 0;
    if (ceilingFirst) ceilingRuns.push(await createLoad(ready.ceilingUrl, plan.roundMs));
    stackRuns.push(await createLoad(ready.createUrl, plan.roundMs));
    if (!ceilingFirst) ceilingRuns.push(await createLoad(ready.ceilingUrl, plan.roundMs));
  }
  const combine = (runs: LoadResult[]) => {
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    const requests = runs.reduce((sum, run) => sum + run.requests - run.errors, 0);
    const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
    return {
      rps: requests / seconds,
      errors: runs.reduce((sum, run) => sum + run.errors, 0),
      p50Ms: median(runs.map((run) => run.p50Ms)),
      p99Ms: median(runs.map((run) => run.p99Ms)),
    };
  };
  const stackLoad = combine(stackRuns);
  const ceilingLoad = combine(ceilingRuns);
  const latency = (load: ReturnType<typeof combine>) =>
    `${fmt(load.rps)} req/s, p50 ${fmt(load.p50Ms, 1)} ms, p99 ${fmt(load.p99Ms, 1)} ms${load.errors ? `, ${load.errors} errors` : ''}`;
  row(
    `create-link (c=${concurrency})`,
    'POST /v1/payment-links',
    latency(stackLoad),
    latency(ceilingLoad),
    stackLoad.rps / ceilingLoad.rps,
    { min: budgets.createLinkThroughput },
  );
  report.createLink = {
    stack: stackLoad,
    ceiling: ceilingLoad,
    rounds: { stack: stackRuns, ceiling: ceilingRuns },
  };

  // --- Refused requests (rate limit) ----------------------------------------------------------------------
  try {
    ask({ cmd: 'rateLimited' });
    const limited = await reply('rateLimited');
    const rejectLoad = (durationMs: number) =>
      runLoad({
        url: limited.url,
        method: 'GET',
        headers: { authorization: limited.authorization },
        concurrency,
        durationMs,
        ok: (status) => status === 429,
      });
    await rejectLoad(plan.warmupMs);
    const rejectRuns: LoadResult[] = [];
    const ceilingRuns: LoadResult[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      const ceilingFirst = round % 2 === 0;
      if (ceilingFirst) ceilingRuns.push(await createLoad(ready.ceilingUrl, plan.roundMs));
      rejectRuns.push(await rejectLoad(plan.roundMs));
      if (!ceilingFirst) ceilingRuns.push(await createLoad(ready.ceilingUrl, plan.roundMs));
    }
    const rejected = combine(rejectRuns);
    const ceiling = combine(ceilingRuns);
    row(
      `429 over the limit (c=${concurrency})`,
      'GET /v1/payment-links',
      latency(rejected),
      latency(ceiling),
      rejected.rps / ceiling.rps,
      { min: budgets.rejectedThroughput },
    );
    report.rateLimited = { rejected, ceiling };
  } catch (error) {
    row(
      '429 over the limit',
      'GET /v1/payment-links',
      `failed: ${(error as Error).message.split('\n')[0]}`,
      '',
      0,
      {
        min: budgets.rejectedThroughput,
      },
    );
  }

  // --- Webhook delivery ------------------------------------------------------------------------------------
  // A failing optional section becomes a row, not a failed run: the other measurements still print.
  try {
    ask({ cmd: 'webhooks', count: plan.webhooks, concurrency });
    const { result: webhooks } = await reply('webhooks');
    if (webhooks.available) {
      const lost = webhooks.delivery.lost + webhooks.delivery.invalid;
      row(
        `webhook delivery (${webhooks.count} events)`,
        'SQS → deliver-webhook → receiver',
        `${fmt(webhooks.delivery.rps)} events/s, ${lost} lost${
          webhooks.delivery.sendErrors
            ? ` (${webhooks.delivery.sendErrors} refused by the queue: ${webhooks.delivery.firstSendError})`
            : ''
        }`,
        `${fmt(webhooks.ceiling.rps)} signed POST/s, ${webhooks.ceiling.lost + webhooks.ceiling.invalid} lost`,
        lost ? 0 : webhooks.delivery.rps / webhooks.ceiling.rps,
        { min: budgets.webhookThroughput },
      );
      // No budget: what the row above cannot beat here, since every attempt is recorded (docs/webhooks.md#the-delivery-log).
      row(
        'webhook delivery vs floor',
        'the one write per attempt alone',
        `${fmt(webhooks.delivery.rps)} events/s`,
        `${fmt(webhooks.recordingFloor.rps)} UpdateItem/s (${fmt(webhooks.recordingFloor.rps / webhooks.ceiling.rps, 2)}× the POST ceiling)`,
        lost ? 0 : webhooks.delivery.rps / webhooks.recordingFloor.rps,
      );
    } else {
      row('webhook delivery', 'deliver-webhook', 'n/a: not built yet', '', undefined);
    }
    report.webhooks = webhooks;
  } catch (error) {
    row('webhook delivery', 'deliver-webhook', `failed: ${(error as Error).message.split('\n')[0]}`, '', 0, {
      min: budgets.webhookThroughput,
    });
  }

  // --- Checkout page ---------------------------------------------------------------------------------------
  try {
    ask({ cmd: 'checkout' });
    const { url: checkoutUrl } = await reply('checkout');
    if (checkoutUrl) {
      const load = (durationMs: number) =>
        runLoad({
          url: checkoutUrl,
          method: 'GET',
          headers: NAVIGATION_HEADERS,
          concurrency,
          durationMs,
          ok: (status) => status < 400,
        });
      await load(plan.warmupMs);
      const checkout = await load(plan.roundMs * plan.rounds);
      row(
        `checkout page (c=${concurrency})`,
        'GET /checkout/{id}',
        `${fmt(checkout.rps)} req/s, p50 ${fmt(checkout.p50Ms, 1)} ms, p99 ${fmt(checkout.p99Ms, 1)} ms${checkout.errors ? `, ${checkout.errors} errors` : ''}`,
        '',
      );
      report.checkout = checkout;
    } else {
      row('checkout page', 'GET /checkout/{id}', 'n/a: not built yet', '');
      report.checkout = null;
    }
  } catch (error) {
    row('checkout page', 'GET /checkout/{id}', `failed: ${(error as Error).message.split('\n')[0]}`, '');
  }
} finally {
  ask({ cmd: 'stop' });
}

// --- Report -------------------------------------------------------------------------------------------------
const table = rows.map((r) => ({
  measure: r.measure,
  subject: r.subject,
  measured: r.value,
  baseline: r.baseline,
  ratio: r.ratio === undefined ? '' : `${fmt(r.ratio, 2)}×`,
  budget: r.budget,
  '': r.ok === undefined ? '' : r.ok ? 'ok' : 'OVER',
}));
const columns = Object.keys(table[0] ?? {}) as (keyof (typeof table)[number])[];
const widths = columns.map((column) => Math.max(column.length, ...table.map((line) => line[column].length)));
const line = (cells: string[]) =>
  cells
    .map((cell, i) => cell.padEnd(widths[i] ?? 0))
    .join('  ')
    .trimEnd();
console.log(line(columns));
console.log(line(widths.map((width) => '-'.repeat(width))));
for (const entry of table) console.log(line(columns.map((column) => entry[column])));
report.rows = rows;
if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
const failed = rows.filter((r) => r.ok === false).length;
console.log(failed ? `\n${failed} budget(s) not met` : '\nall budgets met');
