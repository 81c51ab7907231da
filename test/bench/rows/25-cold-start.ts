import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions, LAMBDA_BUNDLE_FILE } from '../../../lib/bundling/lambda-bundling.ts';
import { lambdaContext, matchRoute } from '../../../lib/local/api-gateway.ts';
import { bundledHandlers } from '../../../lib/local/bundled-handlers.ts';
import type { HandlerName } from '../../../lib/routes.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt, median } from '../bench.ts';
import { NAVIGATION_HEADERS } from '../protocol.ts';

interface Input {
  /** checkout-page's index.mjs, as built for the other rows. */
  checkout: string;
  rounds: number;
}

interface Phases {
  /** Fork of a fresh process to the runtime's `ready`: Node's start and the import of index.mjs. */
  initMs: number;
  /** The first invocation, from sending the event to its answer. */
  firstRequestMs: number;
}

export interface ColdStartResult {
  checkout: Phases[];
  empty: Phases[];
}

/** A function that imports nothing and answers at once: the local stand-in for lambda-perf's empty function. */
async function emptyFunction(): Promise<string> {
  const dir = join(tmpdir(), `empty-function-${process.pid}`);
  const entry = join(dir, 'empty.ts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(entry, "export const handler = async () => ({ statusCode: 200, body: '' });\n");
  await build({ ...esbuildOptions(entry, join(dir, 'out')), sourcemap: false });
  return join(dir, 'out', LAMBDA_BUNDLE_FILE);
}

/** A buyer's first visit of a new link's checkout page, as API Gateway (payload 2.0) hands it to the function. */
function checkoutEvent(server: BenchServer, linkId: string) {
  const path = `/checkout/${linkId}`;
  const route = matchRoute('GET', path);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: path,
    rawQueryString: '',
    // A buyer's browser navigating: anything else gets the preview page, which opens no PSP session.
    headers: { host: new URL(server.baseUrl).host, accept: 'text/html', ...NAVIGATION_HEADERS },
    pathParameters: route.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: new URL(server.baseUrl).host,
      domainPrefix: 'local',
      http: {
        method: 'GET',
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: NAVIGATION_HEADERS['user-agent'],
      },
      requestId: `bench-${linkId}`,
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
}

/** One cold start: a fresh container (lib/local/lambda-runtime.ts), its import, its first invocation. */
async function coldStart(file: string, event: unknown): Promise<Phases> {
  const name = 'checkout-page' as HandlerName;
  const containers = bundledHandlers(new Map([[name, file]]), { onOutput: () => {} });
  try {
    const started = performance.now();
    const handler = await containers.loadHandler(name);
    const ready = performance.now();
    const result = (await handler(event as never, lambdaContext(name, 30_000))) as { statusCode?: number };
    const answered = performance.now();
    if (result.statusCode !== 200) throw new Error(`cold start answered ${result.statusCode}`);
    return { initMs: ready - started, firstRequestMs: answered - ready };
  } finally {
    await containers.stop();
  }
}

/**
 * The Lambda-shaped cold start of checkout (docs/performance.md#cold-start-end-to-end): a fresh process, the
 * import of checkout-page's index.mjs, and its first request, a buyer's first visit of a new link, which opens
 * a session at the sandbox PSP of the local stack; against the same for an empty function, in the same rounds.
 */
export default {
  async measure(bench) {
    const bundles = await bench.bundles();
    const checkout = bundles.find((bundle) => bundle.name === 'checkout-page');
    if (!checkout) throw new Error('no checkout-page bundle');
    const rounds = Math.max(3, Math.round(bench.plan.importRounds / 2));
    console.error(`cold starts: ${rounds} fresh checkout containers and ${rounds} empty ones, interleaved`);
    const result = await bench.serve<ColdStartResult>({ checkout: checkout.file, rounds } satisfies Input);
    const total = (phases: Phases) => phases.initMs + phases.firstRequestMs;
    const describe = (all: Phases[]) =>
      `${fmt(median(all.map(total)), 0)} ms = init ${fmt(median(all.map((p) => p.initMs)), 0)} + first request ${fmt(median(all.map((p) => p.firstRequestMs)), 0)} (median wall)`;
    bench.row({
      measure: 'cold start end to end',
      subject: 'checkout-page, first visit (sandbox)',
      value: describe(result.checkout),
      baseline: `${describe(result.empty)} empty function`,
      ratio: median(result.checkout.map(total)) / median(result.empty.map(total)),
    });
    bench.record('coldStart', result);
  },

  async serve(server, input: Input) {
    const empty = await emptyFunction();
    const result: ColdStartResult = { checkout: [], empty: [] };
    for (let round = 0; round < input.rounds; round++) {
      const created = await fetch(`${server.baseUrl}/v1/payment-links`, {
        method: 'POST',
        headers: { authorization: server.authorization, 'content-type': 'application/json' },
        body: server.createBody,
      });
      const link = (await created.json()) as { id: string };
      result.checkout.push(await coldStart(input.checkout, checkoutEvent(server, link.id)));
      result.empty.push(await coldStart(empty, checkoutEvent(server, link.id)));
    }
    return result;
  },
} satisfies BenchRow<Input, ColdStartResult>;
