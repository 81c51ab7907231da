import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { linkToItem } from '../../functions/adapters/dynamodb/link-mapper.ts';
import { eventItem } from '../../functions/adapters/dynamodb/link-repository.ts';
import { HttpWebhookSender } from '../../functions/adapters/http/webhook-sender.ts';
import { eventMessage, SqsEventQueue } from '../../functions/adapters/sqs/event-queue.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  endpointHealthStore,
  endpointRecoveryStore,
  eventRepository,
  linkRepository,
  now,
  signingKeyCipher,
  signingSecretStore,
  subscriptionRepository,
  webhookEndpointRepository,
} from '../../functions/dependencies.ts';
import type { IsolationSettings } from '../../functions/domain/endpoint-health.ts';
import { cancel, markPaid } from '../../functions/domain/link-events.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { type StoredEvent, WEBHOOK_TIMEOUT_MS } from '../../functions/domain/webhook.ts';
import { deliveryHandler } from '../../functions/handlers/deliver-webhook.ts';
import type { EventQueue } from '../../functions/ports/event-queue.ts';
import type { WebhookSender } from '../../functions/ports/webhook-sender.ts';
import { newEndpointHealthCache } from '../../functions/use-cases/endpoint-isolation.ts';
import { applyTransition } from '../../functions/use-cases/link-transitions.ts';
import type { DeliveryDependencies } from '../../functions/use-cases/webhook-delivery.ts';
import { cachedEndpointDirectory } from '../../functions/use-cases/webhook-fan-out.ts';
import { startSqsPoller } from '../../lib/local/sqs-poller.ts';
import { eventsQueueVisibilitySeconds, timeoutSecondsOf } from '../../lib/routes.ts';
import type { TestStack } from './test-stack.ts';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * How the receiver answers one request: a status, a status with headers, no answer at all, or a reset of the
 * connection instead of an answer (after reading the request: a server that crashed, or a proxy that dropped
 * the connection as the request arrived).
 */
export type Reply = number | { status: number; headers?: Record<string, string> } | 'hang' | 'reset';

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** TCP connections accepted so far (a refused SSRF target must see none). */
  connections: number;
  /** Queues the answers to the next requests; once they run out it answers 200. */
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
}

/**
 * A merchant's webhook endpoint that records what it receives, on 127.0.0.1 (where every server of the tests
 * listens, on ports the system picks) or on another loopback `host`.
 */
export async function startReceiver(port = 0, host = '127.0.0.1'): Promise<Receiver> {
  const replies: Reply[] = [];
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies.shift() ?? 200;
      if (reply === 'hang') {
        hanging.add(() => response.destroy());
        return;
      }
      if (reply === 'reset') {
        request.socket.resetAndDestroy();
        return;
      }
      const { status, headers } = typeof reply === 'number' ? { status: reply, headers: {} } : reply;
      response.writeHead(status, headers).end('ok');
    });
  });
  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    connections: 0,
    reply: (...next) => replies.push(...next),
    async close() {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => {
    receiver.connections++;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://${host}:${receiver.port}/hooks`;
  return receiver;
}

/** Creates an open link through the API with this `webhook_url` (or none), returning its id. */
export async function createLink(stack: TestStack, apiKey: string, webhookUrl?: string): Promise<string> {
  const response = await stack.request('POST', '/v1/payment-links', {
    key: apiKey,
    body: { amount: { value: '12.00', currency: 'EUR' }, ...(webhookUrl ? { webhook_url: webhookUrl } : {}) },
  });
  if (response.status !== 201) throw new Error(`create failed: ${JSON.stringify(response.body)}`);
  return response.body.id;
}

/**
 * What the Checkout and lifecycle work do when a link changes: `applyTransition` with `markPaid` (or `cancel`),
 * handing the event to `queue`. Returns the committed event.
 */
export async function transition(
  linkId: string,
  queue: EventQueue,
  kind: 'paid' | 'canceled' = 'paid',
): Promise<{ link: PaymentLink; eventId: string }> {
  const load = async () => {
    const link = await linkRepository().get(linkId, 'test');
    if (!link) throw new Error(`no link ${linkId}`);
    return link;
  };
  const { link, transition } = await applyTransition(
    { links: linkRepository(), now, queue, checkoutBase: config().CHECKOUT_BASE },
    load,
    (current, at) =>
      kind === 'paid'
        ? markPaid(
            current,
            {
              id: 'pay_x',
              connection_id: 'pc_x',
              provider: 'sandbox' as const,
              reference: `pay_${linkId}`,
              amount: current.amount!,
            },
            at,
          )
        : cancel(current, at),
  );
  if (!transition) throw new Error('no transition');
  return { link, eventId: transition.event.id };
}

export const storedEvent = async (id: string): Promise<StoredEvent> => {
  const event = await eventRepository().get(id, 'test');
  if (!event) throw new Error(`no event ${id}`);
  return event;
};

/** Waiting on a condition: test/support/eventually.ts (re-exported for the webhook tests that import it here). */
export { eventually } from './eventually.ts';

/** A compressed retry schedule: every wait is 1 ms, which becomes a 1 s SQS delay (the smallest). */
export const FAST_SCHEDULE = Array.from({ length: 9 }, () => 1);

export interface DeliveryHarness {
  queue: SqsEventQueue;
  queueUrl: string;
  deadLetters: SqsEventQueue;
  deadLetterUrl: string;
  deps: DeliveryDependencies;
  sqs: SQSClient;
  handler: ReturnType<typeof deliveryHandler>;
  /** Messages currently in the harness's dead-letter queue. */
  deadLetterCount(): Promise<number>;
  stop(): Promise<void>;
}

let harnessCount = 0;

/**
 * The delivery pipeline of the local stack, on a queue of its own and with knobs a test needs: no jitter, a
 * compressed schedule, optionally a shorter attempt timeout and a wrapped sender. The real repositories, the real
 * SQS emulator, the real poller and the real batch handler. The queue's visibility timeout is the deployed one:
 * a message whose handling outlasts a shorter one would be handed out twice on a busy machine.
 */
export async function startDeliveryHarness(
  options: {
    schedule?: readonly number[];
    wrapSender?: (sender: WebhookSender) => WebhookSender;
    now?: () => Date;
    isolation?: IsolationSettings;
    /**
     * Each attempt's timeout: the product's (WEBHOOK_TIMEOUT_MS) unless the test abandons hanging endpoints
     * sooner; then an endpoint that answers may miss it too on a busy machine, and the test must allow for that.
     */
    attemptTimeoutMs?: number;
  } = {},
): Promise<DeliveryHarness> {
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const name = `webhooks-test-${process.pid}-${harnessCount++}`;
  const queueUrl = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { VisibilityTimeout: String(eventsQueueVisibilitySeconds()) },
      }),
    )
  ).QueueUrl as string;
  const deadLetterUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` })))
    .QueueUrl as string;
  const queueArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn as string;
  const sender = new HttpWebhookSender({
    allowPrivateTargets: true,
    timeoutMs: options.attemptTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
  });
  const queue = new SqsEventQueue(sqs, queueUrl);
  const deadLetters = new SqsEventQueue(sqs, deadLetterUrl);
  const deps: DeliveryDependencies = {
    events: eventRepository(),
    links: linkRepository(),
    subscriptions: subscriptionRepository(),
    secrets: signingSecretStore(),
    sender: options.wrapSender ? options.wrapSender(sender) : sender,
    queue,
    deadLetters,
    now: options.now ?? now,
    random: () => 0.5,
    schedule: options.schedule ?? FAST_SCHEDULE,
    endpoints: endpointHealthStore(),
    // The harness's own caches, as a container has: nothing of another harness's (or the stack's) carries over.
    endpointHealth: newEndpointHealthCache(),
    attemptsInFlight: new Set(),
    recoveries: endpointRecoveryStore(),
    endpointStats: webhookEndpointRepository(),
    webhookEndpoints: cachedEndpointDirectory(
      webhookEndpointRepository(),
      signingKeyCipher(),
      options.now ?? now,
    ),
    ...(options.isolation ? { isolation: options.isolation } : {}),
  };
  const handler = deliveryHandler(() => deps);
  const stopPoller = startSqsPoller({
    client: sqs,
    queueUrl,
    queueArn,
    batchSize: 10,
    functionName: 'deliver-webhook-test',
    timeoutMs: timeoutSecondsOf('deliver-webhook') * 1000,
    handler: async () => handler,
  });
  return {
    queue,
    queueUrl,
    deadLetters,
    deadLetterUrl,
    deps,
    sqs,
    handler,
    async deadLetterCount() {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: deadLetterUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
    },
    async stop() {
      await stopPoller();
    },
  };
}

/**
 * `count` links of `account` posting to `webhookUrl`, each canceled (its event committed), so that hundreds of
 * events exist in moments. Returns the event ids, oldest first; nothing is queued yet. The links are made and
 * canceled by the domain, and what the repository's create and commit would leave stored (the canceled link and
 * its event, with their index and outbox keys) is written in batches of 25 items: a fraction of the machine time
 * of three conditional writes per link, which made the data setup most of what the isolation tests cost.
 */
export async function canceledLinkEvents(account: string, webhookUrl: string, count: number) {
  const transitions = Array.from({ length: count }, () => {
    const at = new Date();
    const link = newPaymentLink(
      { account, mode: 'test' },
      { amount: { value: '10.00', currency: 'EUR' }, webhook_url: webhookUrl },
      at,
    );
    const canceled = cancel(link, at);
    if (!canceled) throw new Error('an open link could not be canceled');
    return canceled;
  });
  const items = transitions.flatMap(({ after, event }) => [linkToItem(after), eventItem(event)]);
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, index) =>
    items.slice(index * 25, index * 25 + 25),
  );
  await Promise.all(
    batches.map(async (batch) => {
      let requests: BatchWriteCommandInput['RequestItems'] = {
        [config().TABLE_NAME]: batch.map((Item) => ({ PutRequest: { Item } })),
      };
      while (requests && Object.keys(requests).length) {
        const answer: BatchWriteCommandOutput = await documentClient().send(
          new BatchWriteCommand({ RequestItems: requests }),
        );
        requests = answer.UnprocessedItems;
      }
    }),
  );
  return transitions.map(({ event }) => event.id);
}

/**
 * Hands an account's test-mode events to a queue as committed transitions do, ten to a request, all requests at
 * once: the consumers start delivering while a long list is still being queued, so a slow sequence of requests
 * would let them drain it before anything queued after it arrives.
 */
export async function queueEvents(
  sqs: SQSClient,
  queueUrl: string,
  account: string,
  eventIds: readonly string[],
) {
  const batches = Array.from({ length: Math.ceil(eventIds.length / 10) }, (_, index) =>
    eventIds.slice(index * 10, index * 10 + 10),
  );
  const answers = await Promise.all(
    batches.map((batch) =>
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((id, index) => ({
            Id: String(index),
            ...eventMessage({ id, account, mode: 'test', committed: true }),
          })),
        }),
      ),
    ),
  );
  const refused = answers.reduce((sum, { Failed }) => sum + (Failed?.length ?? 0), 0);
  if (refused) throw new Error(`the queue refused ${refused} events`);
}

/** An SQS event of these message bodies, shaped as the event source mapping shapes it. */
export function sqsEvent(bodies: string[]): SQSEvent {
  return {
    Records: bodies.map((body, index) => ({
      messageId: `m-${index}-${Math.random()}`,
      receiptHandle: `r-${index}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:test',
      awsRegion: 'us-east-1',
    })),
  };
}
