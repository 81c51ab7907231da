import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Message } from '@aws-sdk/client-sqs';
import { problemResponse } from '../../functions/http/problem.ts';
import { startNewContainer } from '../../functions/once.ts';
import {
  EVENTS_DEAD_LETTER_QUEUE_NAME,
  EVENTS_MAX_RECEIVE_COUNT,
  EVENTS_QUEUE_NAME,
  eventsQueueVisibilitySeconds,
  type HandlerName,
  queueConsumers,
  type ScheduleDefinition,
  schedules,
  timeoutSecondsOf,
} from '../routes.ts';
import {
  type HandlerLoader,
  handlerLoader,
  lambdaContext,
  matchRoute,
  toApiGatewayEvent,
  writeResult,
} from './api-gateway.ts';
import {
  type BundledHandlersOptions,
  type BundleFiles,
  buildFunctionBundles,
  bundledHandlers,
} from './bundled-handlers.ts';
import { ensureTable, startEmbeddedDynamoDb } from './embedded-dynamodb.ts';
import { startEmbeddedSqs } from './embedded-sqs.ts';
import { FaultInjector, type FaultPlan, installFaults } from './faults.ts';
import { prepareLocalSecrets } from './local-secrets.ts';
import { enforceFunctionPermissions } from './permissions.ts';
import { runSchedule, startSchedules, timedSchedules } from './scheduler.ts';
import { startQueueConsumers } from './sqs-poller.ts';
import { type LocalStackState, runningStack, STATE_FILE } from './stack-state.ts';

export const LOCAL_TABLE_NAME = 'payment-links';

export interface LocalStackOptions {
  port: number;
  host?: string;
  /** Where the embedded store persists; omitted, everything is in memory (tests). */
  dataDir?: string;
  /**
   * Run each function from the bundle `cdk synth` ships, in a process of its own as the Lambda runtime does
   * (lib/local/bundled-handlers.ts), instead of importing the TypeScript handlers into this process. The
   * bundles are built into `outdir`, or given already built (`files`, as the tests share one build).
   */
  bundled?: ({ outdir: string } | { files: BundleFiles }) & BundledHandlersOptions;
  /** Faults to inject into the functions' calls (lib/local/faults.ts, docs/operations.md#fault-injection). */
  faults?: FaultPlan;
  /** The webhook retry schedule in ms instead of the domain's (`WEBHOOK_RETRY_SCHEDULE_MS`). */
  webhookRetryScheduleMs?: readonly number[];
  /**
   * false: the scheduled functions (sweepers) run only when invoked, never on their timers. For a test that
   * makes work due and runs the sweeper itself: a timer's run beside it would take the same work. A list of
   * handlers: only theirs run on their timers (the chaos run's outbox sweeper), each run of another costing its
   * 60 queries a list for nothing the test makes due.
   */
  schedules?: boolean | readonly HandlerName[];
  /**
   * Told of every batch a queue consumer receives, as the queue hands it out: the order a test checks when what
   * it asserts is the queue's (the fair queue, lib/local/fair-queue.ts), not how fast the consumers then work.
   */
  onQueueReceive?: (handler: HandlerName, messages: readonly Message[]) => void;
  /**
   * More of the functions' environment (functions/config.ts), for this stack's life: a fake PSP's API URL, a
   * lower rate limit, metrics turned on.
   */
  environment?: Readonly<Record<string, string>>;
}

export interface LocalStack {
  baseUrl: string;
  checkoutBase: string;
  dynamodbEndpoint: string;
  tableName: string;
  /** What the fault mode has injected so far, when it is on. */
  faults: FaultInjector | undefined;
  /** Runs a scheduled function once, as EventBridge would, whether or not its timer runs (`schedules`). */
  runSchedule(schedule: ScheduleDefinition): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * The whole service in one process: an HTTP server that turns each request into an API Gateway (payload 2.0)
 * event for the same handler modules the CDK stack deploys, over an embedded DynamoDB-compatible store and an
 * embedded SQS emulator, with the scheduled functions on timers.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  if (options.dataDir) refuseSecondStack(options.dataDir);
  if (options.faults && options.bundled) {
    throw new Error('FAULTS needs the functions in this process: it cannot be combined with --bundled.');
  }
  // The functions' clients and adapters are built again, for this stack's servers and environment.
  startNewContainer();
  const host = options.host ?? '127.0.0.1';
  const services = await startEmbeddedServices(options.dataDir);
  const server = createServer();
  const baseUrl = await listen(server, options.port, host);
  const checkoutBase = `${baseUrl}/checkout`;
  const restoreEnvironment = setFunctionEnvironment(
    functionEnvironment(services, { baseUrl, checkoutBase }, options),
  );

  enforceFunctionPermissions();
  const faults = options.faults && new FaultInjector(options.faults);
  const removeFaults = faults && installFaults(faults);
  const bundled =
    options.bundled &&
    bundledHandlers(
      'files' in options.bundled ? options.bundled.files : await buildFunctionBundles(options.bundled.outdir),
      options.bundled,
    );
  const loadHandler = bundled ? bundled.loadHandler : handlerLoader();
  serveApi(server, loadHandler);
  const stopSchedules = startSchedules(timedSchedules(schedules, options.schedules), loadHandler);
  const stopConsumers = startQueueConsumers(queueConsumers, {
    endpoint: services.sqs.endpoint,
    queues: { [EVENTS_QUEUE_NAME]: services.eventsQueue },
    loadHandler,
    onReceive: options.onQueueReceive,
  });
  const stateFile =
    options.dataDir &&
    writeStateFile(options.dataDir, {
      base_url: baseUrl,
      dynamodb_endpoint: services.dynamodb.endpoint,
      table_name: LOCAL_TABLE_NAME,
      pid: process.pid,
    });

  return {
    baseUrl,
    checkoutBase,
    dynamodbEndpoint: services.dynamodb.endpoint,
    tableName: LOCAL_TABLE_NAME,
    faults,
    runSchedule: (schedule) => runSchedule(schedule, loadHandler),
    async stop() {
      removeFaults?.();
      await stopSchedules();
      await stopConsumers();
      await bundled?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.sqs.stop();
      await services.dynamodb.stop();
      if (stateFile) rmSync(stateFile, { force: true });
      restoreEnvironment();
      // Built again for the environment now current (an earlier stack's, if one still runs in this process).
      startNewContainer();
    },
  };
}

/**
 * How fast outcomes reach routing on this stack (docs/orchestration.md#observed-outcomes): each is written to the
 * counters as it is counted, and read at most a second old, so that someone trying a score of payments sees
 * routing move. One process serves every function here, so none of production's batching (every 5 s at most, read
 * at most 10 s old: functions/config.ts) is needed to keep the counter items cool. The variables, when set, win.
 */
export const LOCAL_OUTCOME_TIMING = { flushEveryMs: 0, cacheMs: 1_000 } as const;

/** The functions' environment (functions/config.ts) on this stack: its servers, its URLs and the options'. */
function functionEnvironment(
  services: Awaited<ReturnType<typeof startEmbeddedServices>>,
  { baseUrl, checkoutBase }: { baseUrl: string; checkoutBase: string },
  options: LocalStackOptions,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: services.dynamodb.endpoint,
    AWS_ENDPOINT_URL_SQS: services.sqs.endpoint,
    EVENTS_QUEUE_URL: services.eventsQueue.queueUrl,
    EVENTS_DEAD_LETTER_QUEUE_URL: services.eventsDeadLetterQueue.queueUrl,
    TABLE_NAME: LOCAL_TABLE_NAME,
    BASE_URL: baseUrl,
    CHECKOUT_BASE: checkoutBase,
    ALLOW_PRIVATE_TARGETS: 'true',
    // The metrics' EMF lines go to stdout as on Lambda, where CloudWatch would read them.
    POWERTOOLS_METRICS_NAMESPACE: 'PaymentLinks-local',
    OUTCOME_FLUSH_MS: process.env.OUTCOME_FLUSH_MS ?? String(LOCAL_OUTCOME_TIMING.flushEveryMs),
    OUTCOME_CACHE_MS: process.env.OUTCOME_CACHE_MS ?? String(LOCAL_OUTCOME_TIMING.cacheMs),
    ...(options.webhookRetryScheduleMs && {
      WEBHOOK_RETRY_SCHEDULE_MS: options.webhookRetryScheduleMs.join(','),
    }),
    ...prepareLocalSecrets(options.dataDir),
    ...options.environment,
  };
}

/** Two stacks on one data folder would share (and corrupt) the embedded store's files. */
function refuseSecondStack(dataDir: string): void {
  const running = runningStack(dataDir);
  if (running && running.pid !== process.pid) {
    throw new Error(
      `A local stack already runs from ${dataDir} at ${running.base_url} (pid ${running.pid}): stop it first, or use another DATA_DIR.`,
    );
  }
}

/** The embedded DynamoDB with the table, and the embedded SQS with the events queue and its dead letters. */
async function startEmbeddedServices(dataDir: string | undefined) {
  const dynamodb = await startEmbeddedDynamoDb({ dataDir: dataDir && join(dataDir, 'dynamodb') });
  await ensureTable(dynamodb.endpoint, LOCAL_TABLE_NAME);
  const sqs = await startEmbeddedSqs({ dataDir: dataDir && join(dataDir, 'sqs') });
  // As the CDK stack configures them (lib/constructs/webhook-event-queues.ts): visibility and redrive.
  const eventsDeadLetterQueue = sqs.server.createQueue(EVENTS_DEAD_LETTER_QUEUE_NAME);
  const eventsQueue = sqs.server.createQueue(EVENTS_QUEUE_NAME, {
    attributes: {
      VisibilityTimeout: String(eventsQueueVisibilitySeconds()),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: eventsDeadLetterQueue.queueArn,
        maxReceiveCount: String(EVENTS_MAX_RECEIVE_COUNT),
      }),
    },
  });
  return { dynamodb, sqs, eventsQueue, eventsDeadLetterQueue };
}

/** Listens on `port` (0: any free one) and answers the base URL. */
async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/**
 * Configuration reaches the functions as it does on Lambda, through environment variables: the handlers run in
 * this process (or in children that inherit its environment), so these are set on `process.env`. The returned
 * function puts back what was there before, so a stopped stack leaves the process as it found it.
 */
function setFunctionEnvironment(variables: Record<string, string>): () => void {
  const all: Record<string, string> = {
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    ...variables,
  };
  const previous = Object.fromEntries(Object.keys(all).map((name) => [name, process.env[name]]));
  Object.assign(process.env, all);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** The state file `npm run keys` and `npm run psp` find the running stack by. */
function writeStateFile(dataDir: string, state: LocalStackState): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, STATE_FILE);
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
  return file;
}

function serveApi(server: Server, loadHandler: HandlerLoader) {
  server.on('request', async (request, response) => {
    // A request target no URL parser accepts (`//[`) names no route: `$default`, as an unknown path does.
    const url = URL.parse(request.url ?? '/', 'http://local') ?? new URL('http://local/');
    const route = matchRoute(request.method ?? 'GET', url.pathname);
    // A body that never arrives (the client went away mid-upload) leaves nobody to answer.
    const event = await toApiGatewayEvent(request, url, route).catch(() => undefined);
    if (!event) return void response.destroy();
    const requestId = event.requestContext.requestId;
    try {
      const handler = await loadHandler(route.handler);
      writeResult(
        response,
        await handler(event, lambdaContext(route.handler, timeoutSecondsOf(route.handler) * 1000)),
        requestId,
      );
    } catch (error) {
      // What API Gateway does when a function crashes: a 500, here in our problem format.
      console.error(error);
      writeResult(response, problemResponse(error, requestId), requestId);
    }
  });
}
