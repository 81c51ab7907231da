import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tableIndexes, tableSchema } from '../../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../../functions/clients/dynamodb.ts';
import { httpRequest, navigate } from '../../support/navigate.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt } from '../bench.ts';
import { type IndexDefinition, recordStoreCost, type StoreCall } from '../store-cost.ts';

/** One step of a link's life, with what it cost: store calls, HTTP requests through API Gateway, log bytes. */
export interface Step {
  step: string;
  /** Requests through API Gateway (each one Lambda invocation). */
  apiRequests: number;
  /** Lambda invocations without API Gateway (the SQS-driven delivery). */
  otherInvocations: number;
  /**
   * How long its function runs on AWS, from the model (the local stack cannot measure AWS durations): mostly
   * waiting on another party (the PSP's API for checkout, the merchant's endpoint for delivery).
   */
  modelledMs: number;
  /** A step a link's life may have but the cost per link leaves out (priced on its own line). */
  optional?: true;
  calls: StoreCall[];
  /** Bytes our functions logged (stdout and stderr of the stack's process) during the step. */
  logBytes: number;
}

export interface LifeResult {
  steps: Step[];
  /** Bytes each item of the link's life stores, in the table and in each index, after the webhook. */
  stored: { kind: string; table: number; indexes: Record<string, number> }[];
}

/** The deployed indexes, each with its projection (functions/adapters/dynamodb/table-schema.ts). */
const indexes: readonly IndexDefinition[] = tableIndexes;

/** The price table of docs/performance.md#cost-per-million-links (us-east-1, on-demand, arm64). */
export const prices = {
  apiRequest: 1.0 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  gbSecond: 0.0000133334,
  wru: 0.625 / 1e6,
  rru: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6,
  logGb: 0.5,
  storageGbMonth: 0.25,
};

/**
 * Lambda's own log lines per invocation: platform.start and platform.report in JSON format are about 450 B
 * together at the INFO system log level; the functions run at WARN (lib/constructs/service-function.ts),
 * which drops both.
 */
export const PLATFORM_LOG_BYTES = 0;

/**
 * The Lambda model (docs/performance.md#cost-per-million-links): 512 MB functions, and 1% of invocations a
 * cold start that bills 400 ms of INIT; each step's own duration is its `modelledMs`.
 */
const FUNCTION_GB = 0.5;
const COLD_START_SHARE = 0.01;
const COLD_START_MS = 400;
const gbSeconds = (step: Pick<Step, 'modelledMs' | 'apiRequests' | 'otherInvocations'>) =>
  FUNCTION_GB *
  (step.modelledMs / 1000 +
    (step.apiRequests + step.otherInvocations) * COLD_START_SHARE * (COLD_START_MS / 1000));
/** The event's send, its receive and its delete. */
const SQS_REQUESTS = 3;
/**
 * What a million links may cost: a guard at the cost the shape reached, not a target (the $10 target was
 * withdrawn: docs/performance.md#cost-per-million-payment-links-on-aws). A change that raises it says so.
 */
// 20.14 → 20.86: a payment's entry in the account-wide books (1 WRU and its keys' storage; docs/performance.md).
// 20.86 → 26.04: the console's search keys (a link's metadata, a payment's id and amount: 3 WRU), a paid payment's
// PSP reference pointer for payouts (1 WRU), and the connection's payout reading, written once per container but
// counted here for the one link of the row (3 WRU, $1.88 of it); docs/performance.md#cost-per-million-payment-links-on-aws.
const COST_CEILING = 26.04;

/** A merchant's webhook endpoint answering 204; `next()` resolves on the next webhook it receives. */
export async function receiver() {
  let waiter: () => void = () => {};
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    next: () =>
      new Promise<void>((resolve) => {
        waiter = resolve;
      }),
    close: () => server.close(),
  };
}

/** The store's calls and our log bytes while `run` runs. */
async function measured(
  recorder: ReturnType<typeof recordStoreCost>,
  step: Omit<Step, 'calls' | 'logBytes'>,
  run: () => Promise<void>,
): Promise<Step> {
  const first = recorder.calls.length;
  let logBytes = 0;
  const writers = { out: process.stdout.write, err: process.stderr.write };
  const count =
    (original: typeof process.stdout.write) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      logBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      return (original as (...args: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
    };
  process.stdout.write = count(writers.out) as typeof process.stdout.write;
  process.stderr.write = count(writers.err) as typeof process.stderr.write;
  try {
    await run();
  } finally {
    process.stdout.write = writers.out;
    process.stderr.write = writers.err;
  }
  return { ...step, calls: recorder.calls.slice(first), logBytes };
}

async function ok(response: Response, what: string): Promise<Response> {
  if (response.status >= 400)
    throw new Error(`${what} answered ${response.status}: ${await response.text()}`);
  return response;
}

/** One link's whole life through the local stack, the way docs/performance.md models it. */
export async function life(
  server: BenchServer,
  hook: Awaited<ReturnType<typeof receiver>>,
): Promise<LifeResult> {
  const recorder = recordStoreCost(documentClient(), indexes);
  const steps: Step[] = [];
  try {
    const headers = { authorization: server.authorization, 'content-type': 'application/json' };
    let link = { id: '', checkout_url: '' };
    steps.push(
      await measured(
        recorder,
        { step: 'create', apiRequests: 1, otherInvocations: 0, modelledMs: 20 },
        async () => {
          const body = { ...JSON.parse(server.createBody), webhook_url: hook.url };
          const response = await ok(
            await fetch(`${server.baseUrl}/v1/payment-links`, {
              method: 'POST',
              headers,
              body: JSON.stringify(body),
            }),
            'create',
          );
          link = (await response.json()) as typeof link;
        },
      ),
    );
    steps.push(
      await measured(
        recorder,
        { step: 'merchant GET', apiRequests: 1, otherInvocations: 0, modelledMs: 20, optional: true },
        async () => {
          await (
            await ok(await fetch(`${server.baseUrl}/v1/payment-links/${link.id}`, { headers }), 'get')
          ).text();
        },
      ),
    );
    let sessionUrl = '';
    steps.push(
      await measured(
        recorder,
        { step: 'checkout visit', apiRequests: 1, otherInvocations: 0, modelledMs: 400 },
        async () => {
          // node:http, not fetch: fetch sends its own Sec-Fetch-Mode, and checkout shows a mere preview then.
          const page = await navigate(link.checkout_url);
          sessionUrl =
            /http-equiv="refresh" content="0;url=([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&') ??
            '';
          if (!sessionUrl) throw new Error(`checkout answered ${page.status} with no PSP page`);
        },
      ),
    );
    // The built-in sandbox's own page and its notification stand for the PSP's hosted page and its webhook:
    // with Stripe, Mollie or Adyen the page is theirs and only the notification reaches us.
    steps.push(
      await measured(
        recorder,
        { step: 'sandbox PSP page', apiRequests: 1, otherInvocations: 0, modelledMs: 0 },
        async () => {
          const page = await httpRequest(sessionUrl);
          if (page.status !== 200) throw new Error(`the sandbox page answered ${page.status}`);
        },
      ),
    );
    const delivered = hook.next();
    steps.push(
      await measured(
        recorder,
        { step: 'pay → notification', apiRequests: 2, otherInvocations: 0, modelledMs: 30 },
        async () => {
          const paid = await httpRequest(`${sessionUrl}/pay`, { method: 'POST' });
          if (paid.status >= 400) throw new Error(`pay answered ${paid.status}`);
        },
      ),
    );
    steps.push(
      await measured(
        recorder,
        { step: 'webhook delivery', apiRequests: 0, otherInvocations: 1, modelledMs: 200 },
        async () => {
          await delivered;
          // The delivery records its attempt after the answer: wait for that write.
          const deadline = Date.now() + 10_000;
          while (Date.now() < deadline) {
            const last = recorder.calls.at(-1);
            if (last?.items.includes('EVENT') && last.wru > 0) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
        },
      ),
    );
  } finally {
    recorder.stop();
  }
  // What stays stored: every item the life wrote that still exists (TTL'd ones included: they stay until
  // TTL).
  const stored: LifeResult['stored'] = [];
  for (const { TableName, Key } of recorder.written.values()) {
    const bytes = await recorder.stored(TableName, Key);
    if (bytes.table) stored.push({ kind: String(Key.pk?.S).split('#')[0] as string, ...bytes });
  }
  return { steps, stored };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const perMillion = (units: number, price: number) => units * price * 1e6;

/** What a million of `steps` cost, line by line, from their counts (and the bytes `stored` keeps 30 days). */
function priced(steps: readonly Step[], storedBytes: number) {
  const calls = steps.flatMap((step) => step.calls);
  const wru = sum(calls.map((call) => call.wru));
  const rru = sum(calls.map((call) => call.rru));
  const apiRequests = sum(steps.map((step) => step.apiRequests));
  const invocations = apiRequests + sum(steps.map((step) => step.otherInvocations));
  const compute = sum(steps.map(gbSeconds));
  const durations = steps.map((step) => step.modelledMs).join(' + ');
  const logBytes = sum(steps.map((step) => step.logBytes)) + invocations * PLATFORM_LOG_BYTES;
  // The event's queue requests belong to the step that delivers it.
  const sqsRequests = steps.some((step) => step.otherInvocations) ? SQS_REQUESTS : 0;
  const lines = [
    { line: 'DynamoDB writes', count: `${fmt(wru, 1)} WRU`, cost: perMillion(wru, prices.wru) },
    {
      line: 'Lambda compute',
      count: `${fmt(compute, 3)} GB-s (modelled: ${durations} ms at ${FUNCTION_GB * 1024} MB, ${COLD_START_SHARE * 100}% cold starts)`,
      cost: perMillion(compute, prices.gbSecond),
    },
    {
      line: 'API Gateway',
      count: `${apiRequests} requests`,
      cost: perMillion(apiRequests, prices.apiRequest),
    },
    { line: 'CloudWatch Logs', count: `${fmt(logBytes)} B`, cost: perMillion(logBytes / 1e9, prices.logGb) },
    {
      line: 'SQS',
      count: `${sqsRequests} requests (modelled)`,
      cost: perMillion(sqsRequests, prices.sqsRequest),
    },
    {
      line: 'Lambda requests',
      count: `${invocations} invocations`,
      cost: perMillion(invocations, prices.lambdaRequest),
    },
    { line: 'DynamoDB reads', count: `${fmt(rru, 1)} RRU`, cost: perMillion(rru, prices.rru) },
    {
      line: 'storage, 30 days',
      count: `${fmt(storedBytes)} B`,
      cost: perMillion(storedBytes / 1e9, prices.storageGbMonth),
    },
  ].filter((line) => line.cost > 0);
  return { lines, total: sum(lines.map((line) => line.cost)) };
}

/**
 * The cost of a million links, line by line, from one link's life measured on the local stack
 * (docs/performance.md#cost-per-million-links): store writes and reads as DynamoDB bills them (index copies
 * included), requests, invocations and log bytes counted; Lambda durations and the PSP's and merchant's
 * latencies from the model. The life is create, checkout visit, payment and webhook (issue 25's); a
 * merchant's GET of the link, which the webhook makes unnecessary, is priced on a line of its own.
 */
/**
 * The life a million links repeat: the first link of a new endpoint and a new container pays once for what
 * later links find ready (the endpoint's health, cached keys), so the second link's life is the one measured.
 */
export async function steadyLife(server: BenchServer): Promise<LifeResult> {
  const hook = await receiver();
  try {
    await life(server, hook);
    return await life(server, hook);
  } finally {
    hook.close();
  }
}

/**
 * The steps of a life with a hosted PSP, as a merchant's link lives in production: without the sandbox's own
 * page, session item and pay click (with Stripe, Mollie or Adyen those are the PSP's, and only the
 * notification reaches us), and without the sweepers' reads of their lists (outbox, timelines), which run on
 * their schedule whatever the links do.
 */
export function hostedLife(measured: LifeResult): Step[] {
  const sweeperRead = (call: StoreCall) =>
    call.indexName === tableSchema.gsi2.indexName || call.indexName === tableSchema.gsi3.indexName;
  const sandbox = (call: StoreCall) => call.items.includes('SANDBOX');
  return measured.steps
    .filter((step) => step.step !== 'sandbox PSP page')
    .map((step) => ({
      ...step,
      apiRequests: step.step === 'pay → notification' ? 1 : step.apiRequests,
      calls: step.calls.filter((call) => !sweeperRead(call) && !sandbox(call)),
    }));
}

export default {
  serve: steadyLife,

  async measure(bench) {
    const measured = await bench.serve<LifeResult>();
    const steps = hostedLife(measured);
    for (const step of steps) {
      const wru = sum(step.calls.map((call) => call.wru));
      const index = sum(step.calls.flatMap((call) => Object.values(call.indexWru)));
      const rru = sum(step.calls.map((call) => call.rru));
      bench.row({
        measure: step.optional ? 'beside the life (hosted PSP)' : 'a link’s life (hosted PSP)',
        subject: step.step,
        value: `${fmt(wru, 1)} WRU (${fmt(index, 1)} in indexes), ${fmt(rru, 1)} RRU, ${fmt(step.logBytes)} B logged`,
        baseline: step.calls
          .map(
            (call) =>
              `${call.command}[${call.items.join(',')}]${call.wru ? `=${call.wru}` : ''}${call.failed ? '!' : ''}`,
          )
          .join(' '),
      });
    }
    const stored = measured.stored.filter((item) => item.kind !== 'SANDBOX' && item.kind !== 'RATE');
    // DynamoDB bills 100 bytes of overhead per item, in the table and in each index holding a copy.
    const storedBytes = sum(
      stored.map((item) => item.table + 100 + sum(Object.values(item.indexes).map((b) => (b ? b + 100 : 0)))),
    );
    const life = priced(
      steps.filter((step) => !step.optional),
      storedBytes,
    );
    for (const { line, count, cost } of life.lines) {
      bench.row({
        measure: 'cost per million links',
        subject: line,
        value: `$${fmt(cost, 2)}`,
        baseline: count,
      });
    }
    bench.row({
      measure: 'cost per million links',
      subject: 'total',
      value: `$${fmt(life.total, 2)}`,
      baseline: `ceiling $${COST_CEILING}`,
      // The ceiling is stated in cents: a fraction of a cent below the rounding is no rise.
      ratio: Math.round(life.total * 100) / 100 / COST_CEILING,
      budget: { max: 1 },
    });
    const extras = steps.filter((step) => step.optional);
    for (const step of extras) {
      const extra = priced([step], 0);
      bench.row({
        measure: 'cost per million links',
        subject: `+ each ${step.step}`,
        value: `$${fmt(extra.total, 2)}`,
        baseline: extra.lines.map(({ line, cost }) => `${line} $${fmt(cost, 2)}`).join(', '),
      });
    }
    bench.record('costPerLink', {
      measured,
      perMillion: Object.fromEntries(life.lines.map((l) => [l.line, l.cost])),
      total: life.total,
    });
  },
} satisfies BenchRow;
