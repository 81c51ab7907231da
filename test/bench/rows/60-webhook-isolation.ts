import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sqsClient } from '../../../functions/clients/sqs.ts';
import { config } from '../../../functions/config.ts';
import { apiKeyRepository, signingSecretStore } from '../../../functions/dependencies.ts';
import { issueApiKey } from '../../../functions/use-cases/api-keys.ts';
import { canceledLinkEvents, queueEvents } from '../../support/webhooks.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt } from '../bench.ts';
import { budgets } from '../budgets.ts';

/** The scenario of docs/webhooks.md, "Isolation": this many events of a hanging endpoint queued first. */
const HANGING_EVENTS = 600;
/** Then this many new events of a healthy endpoint, timed until they have all arrived. */
const HEALTHY_EVENTS = 20;

export interface IsolationBenchResult {
  /** ms until the healthy endpoint had all its webhooks, alone (twice: before and after). */
  alone: number[];
  /** ms until it had them all, queued right behind the hanging endpoint's events. */
  beside: number;
  /** ms until it had them all, queued right behind as many events of another tenant's answering endpoint. */
  behindBacklog: number;
  /** Requests the hanging endpoint received (and never answered) meanwhile. */
  hangingRequests: number;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let round = 0;

/**
 * Events of `count` canceled links of a fresh tenant posting to `url` (the tenant's key gives it a secret), and
 * a function that hands them to the events queue as committed transitions do.
 */
async function tenantEvents(server: BenchServer, name: string, url: string, count: number) {
  const account = `${server.account}-${name}-${process.pid}-${round++}`;
  await issueApiKey({ keys: apiKeyRepository(), secrets: signingSecretStore() }, account, 'test');
  const ids = await canceledLinkEvents(account, url, count);
  return { ids, queue: () => queueEvents(sqsClient(), config().EVENTS_QUEUE_URL, account, ids) };
}

async function isolation(server: BenchServer): Promise<IsolationBenchResult> {
  let waiting = new Set<string>();
  let arrived = () => {};
  const healthy = createServer((request, response) => {
    request.resume().on('end', () => {
      response.writeHead(204).end();
      waiting.delete(String(request.headers['webhook-id']));
      if (!waiting.size) arrived();
    });
  });
  const hangingSockets = new Set<Socket>();
  let hangingRequests = 0;
  const hanging = createServer((request) => {
    hangingRequests++;
    request.resume();
  });
  hanging.on('connection', (socket) => hangingSockets.add(socket));
  const answering = createServer((request, response) => {
    request.resume().on('end', () => response.writeHead(204).end());
  });
  const healthyUrl = `${await listen(healthy)}/hooks`;
  const hangingUrl = `${await listen(hanging)}/hooks`;
  const answeringUrl = `${await listen(answering)}/hooks`;

  /** ms from handing a fresh healthy tenant's events to the queue until they have all arrived. */
  const healthyDelivery = async (before: () => Promise<void> = async () => {}) => {
    const { ids, queue } = await tenantEvents(server, 'healthy', healthyUrl, HEALTHY_EVENTS);
    await before();
    waiting = new Set(ids);
    const all = new Promise<void>((resolve, reject) => {
      arrived = resolve;
      setTimeout(() => reject(new Error('the healthy webhooks did not all arrive within 60 s')), 60_000);
    });
    const started = performance.now();
    await queue();
    await all;
    return performance.now() - started;
  };

  try {
    const first = await healthyDelivery();
    const hangingTenant = await tenantEvents(server, 'hanging', hangingUrl, HANGING_EVENTS);
    const beside = await healthyDelivery(hangingTenant.queue);
    const requestsMeanwhile = hangingRequests;
    const second = await healthyDelivery();
    const backlog = await tenantEvents(server, 'backlog', answeringUrl, HANGING_EVENTS);
    const behindBacklog = await healthyDelivery(backlog.queue);
    return { alone: [first, second], beside, behindBacklog, hangingRequests: requestsMeanwhile };
  } finally {
    for (const socket of hangingSockets) socket.destroy();
    healthy.close();
    hanging.close();
    answering.close();
  }
}

/**
 * Isolation: a healthy endpoint's 20 new webhooks queued right behind 600 events of an endpoint that never
 * answers, against the same 20 alone (a fresh tenant each time, so both start unproven). Then, without a budget,
 * the same 20 behind 600 of another merchant whose endpoint answers: what the fair queue spares them
 * (docs/webhooks.md, "Queue order").
 */
export default {
  serve: (server) => isolation(server),

  async measure(bench) {
    try {
      const result = await bench.serve<IsolationBenchResult>();
      bench.record('webhookIsolation', result);
      const alone = result.alone.reduce((sum, ms) => sum + ms, 0) / result.alone.length;
      bench.row({
        measure: 'webhook isolation',
        subject: `${HEALTHY_EVENTS} webhooks behind ${HANGING_EVENTS} of a hanging endpoint`,
        value: `${fmt(result.beside)} ms (${result.hangingRequests} attempts to the hanging endpoint)`,
        baseline: `${fmt(alone)} ms alone (${result.alone.map((ms) => fmt(ms)).join(', ')})`,
        ratio: result.beside / alone,
        budget: { max: budgets.webhookIsolation },
      });
      bench.row({
        measure: 'webhook fairness',
        subject: `${HEALTHY_EVENTS} webhooks behind ${HANGING_EVENTS} of an answering endpoint`,
        value: `${fmt(result.behindBacklog)} ms`,
        baseline: `${fmt(alone)} ms alone`,
        ratio: result.behindBacklog / alone,
      });
    } catch (error) {
      bench.row({
        measure: 'webhook isolation',
        subject: 'deliver-webhook',
        value: `failed: ${(error as Error).message.split('\n')[0]}`,
        baseline: '',
        ratio: Number.POSITIVE_INFINITY,
        budget: { max: budgets.webhookIsolation },
      });
    }
  },
} satisfies BenchRow<undefined, IsolationBenchResult>;
