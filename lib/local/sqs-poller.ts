import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type HandlerName, type QueueConsumerDefinition, timeoutSecondsOf } from '../routes.ts';
import { type HandlerLoader, lambdaContext } from './api-gateway.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface SqsPollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  /** Invocations at most in flight, as the event source's maximum concurrency. */
  concurrency?: number;
  functionName: string;
  /** The function's timeout (`timeoutSecondsOf` in lib/routes.ts), which its context reports as remaining time. */
  timeoutMs: number;
  handler: () => Promise<SqsHandler>;
  region?: string;
  /**
   * Long-poll wait per receive (1 s unless given). `stop()` aborts the receives under way, but the emulator (fauxqs)
   * keeps an aborted receive's wait until it ends and hands it what arrives meanwhile, lost until its visibility
   * timeout ends: a poller stopped while its queue lives on (tests) waits briefly; the local stack's, stopped only
   * with the emulator, as long as Lambda's event source (`LOCAL_LONG_POLL_SECONDS`).
   */
  waitTimeSeconds?: number;
  /** Told of every non-empty batch received, before it is handed to the handler. */
  onReceive?: (messages: readonly Message[]) => void;
}

/**
 * What Lambda's SQS event source mapping does, on one machine: long-polls the queue, invokes the handler with
 * an `SQSEvent` built from the received messages, then deletes the records that succeeded. With a
 * `batchItemFailures` response only the records it names stay on the queue; when the invocation throws, none is
 * deleted. Records left on the queue come back when their visibility timeout ends (the queue's own setting).
 * Returns a function that stops polling and waits for invocations in flight.
 */
export function startSqsPoller(options: SqsPollerOptions): () => Promise<void> {
  const abort = new AbortController();
  const scaling: Scaling = { backlogUntil: 0, longPolling: 0 };
  const loops = Array.from({ length: options.concurrency ?? 1 }, (_, index) =>
    pollLoop(options, abort.signal, index < INITIAL_POLLERS ? undefined : scaling, scaling),
  );
  return async () => {
    abort.abort();
    await Promise.allSettled(loops);
  };
}

/**
 * Lambda's event source starts with five concurrent pollers and adds more, up to the maximum concurrency, while
 * the queue has a backlog; idle, it scales back. The extra loops here long-poll while a full batch was received
 * within the last `SCALE_DOWN_MS`; otherwise they look once per `IDLE_LOOK_MS` (a backlog the busy loops cannot
 * see, because their invocations are still running, is found that way), so that a trickle of messages is not
 * spread over many small batches. While a loop waits in a long poll, what arrives is handed to it: a look would
 * find nothing it does not, so none is made (five looks a second were most of what an idle local stack cost).
 */
const INITIAL_POLLERS = 5;
const SCALE_DOWN_MS = 5_000;
const IDLE_LOOK_MS = 1_000;

/** How long the local stack's pollers wait in a receive: as long as Lambda's event source does. */
export const LOCAL_LONG_POLL_SECONDS = 20;

interface Scaling {
  backlogUntil: number;
  /** Loops waiting in a long poll now. */
  longPolling: number;
}

async function pollLoop(
  options: SqsPollerOptions,
  signal: AbortSignal,
  onlyWithBacklog: Scaling | undefined,
  scaling: Scaling,
): Promise<void> {
  while (!signal.aborted) {
    const idle = onlyWithBacklog !== undefined && Date.now() > onlyWithBacklog.backlogUntil;
    if (idle) {
      await pause(IDLE_LOOK_MS, signal);
      if (scaling.longPolling > 0) continue;
    }
    if (signal.aborted) return;
    if (!idle) scaling.longPolling++;
    const messages = await receiveBatch(options, signal, idle).finally(() => {
      if (!idle) scaling.longPolling--;
    });
    if (!messages.length) continue;
    options.onReceive?.(messages);
    if (messages.length >= options.batchSize) scaling.backlogUntil = Date.now() + SCALE_DOWN_MS;
    await invoke(options, messages);
  }
}

/**
 * Resolves after `ms`, or as soon as `signal` aborts: `stop()` returns at once, not after an idle loop's pause. On
 * the global `setTimeout`, not `node:timers/promises`, so that a test's fake timers drive it (sqs-poller.test.ts).
 */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * One receive, a long poll unless `idle`: the messages, or none when it failed (logged, then a pause) or was
 * stopped.
 */
async function receiveBatch(
  options: SqsPollerOptions,
  signal: AbortSignal,
  idle: boolean,
): Promise<Message[]> {
  try {
    const received = await options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: options.batchSize,
        WaitTimeSeconds: idle ? 0 : (options.waitTimeSeconds ?? 1),
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: signal },
    );
    return received.Messages ?? [];
  } catch (error) {
    if (signal.aborted) return [];
    console.error(`${options.functionName}: receive failed`, error);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return [];
  }
}

async function invoke(options: SqsPollerOptions, messages: Message[]): Promise<void> {
  const records = messages.map((message) => toRecord(message, options));
  let failed: Set<string>;
  try {
    const handler = await options.handler();
    const response = await handler(
      { Records: records },
      lambdaContext(options.functionName, options.timeoutMs),
    );
    failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
  } catch (error) {
    console.error(`${options.functionName}: invocation failed; the whole batch stays on the queue`, error);
    return;
  }
  const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
  if (!done.length) return;
  await options.client
    .send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle ?? '',
        })),
      }),
    )
    .catch((error) => console.error(`${options.functionName}: delete failed`, error));
}

/** An `SQSRecord` exactly as the event source mapping shapes it from a received message. */
function toRecord(message: Message, options: SqsPollerOptions): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId
        ? { MessageDeduplicationId: attributes.MessageDeduplicationId }
        : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
          ...(value.BinaryValue !== undefined
            ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
            : {}),
          stringListValues: value.StringListValues ?? [],
          binaryListValues: (value.BinaryListValues ?? []).map((bytes) =>
            Buffer.from(bytes).toString('base64'),
          ),
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn,
    awsRegion: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
  };
}

/**
 * Starts one poller per queue consumer of the route table (lib/routes.ts `queueConsumers`), each invoking the
 * very handler module the CDK stack wires to the queue's event source. Returns a function that stops them all.
 */
export function startQueueConsumers(
  consumers: readonly QueueConsumerDefinition[],
  options: {
    endpoint: string;
    queues: Record<string, { queueUrl: string; queueArn: string }>;
    loadHandler: HandlerLoader;
    onReceive?: (handler: HandlerName, messages: readonly Message[]) => void;
  },
): () => Promise<void> {
  const client = new SQSClient({
    endpoint: options.endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // fauxqs names queues `http://sqs.<region>.127.0.0.1:<port>/...`, not a valid URL: use the endpoint.
    useQueueUrlAsEndpoint: false,
  });
  const stops = consumers.map((consumer) => {
    const queue = options.queues[consumer.queue];
    if (!queue) throw new Error(`No local queue ${consumer.queue} for ${consumer.handler}.`);
    return startSqsPoller({
      client,
      ...queue,
      batchSize: consumer.batchSize,
      concurrency: consumer.maxConcurrency,
      functionName: consumer.handler,
      timeoutMs: timeoutSecondsOf(consumer.handler) * 1000,
      waitTimeSeconds: LOCAL_LONG_POLL_SECONDS,
      handler: async () => (await options.loadHandler(consumer.handler)) as unknown as SqsHandler,
      onReceive: options.onReceive && ((messages) => options.onReceive?.(consumer.handler, messages)),
    });
  });
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
    client.destroy();
  };
}
