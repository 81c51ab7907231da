import { existsSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { keys } from '../../../functions/adapters/dynamodb/table-schema.ts';
import { eventMessage } from '../../../functions/adapters/sqs/event-queue.ts';
import { sqsClient } from '../../../functions/clients/sqs.ts';
import { config } from '../../../functions/config.ts';
import { linkRepository } from '../../../functions/dependencies.ts';
import { newId } from '../../../functions/domain/ids.ts';
import { cancel, type LinkEvent } from '../../../functions/domain/link-events.ts';
import { newPaymentLink } from '../../../functions/domain/payment-link.ts';
import { withEventCheckoutUrl } from '../../../functions/use-cases/link-transitions.ts';
import { inParallel } from '../../support/in-parallel.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt } from '../bench.ts';
import { budgets } from '../budgets.ts';

export type WebhookBenchResult =
  | { available: false }
  | {
      available: true;
      count: number;
      ceiling: { rps: number; lost: number; invalid: number };
      /** One write per event, the least any delivery that records its attempts does: no queue, no HTTP. */
      recordingFloor: { rps: number };
      delivery: {
        rps: number;
        lost: number;
        invalid: number;
        /** Events the queue refused (SendMessage failed): lost before delivery could see them. */
        sendErrors: number;
        firstSendError: string | undefined;
      };
    };

const handlersDir = join(import.meta.dirname, '..', '..', '..', 'functions', 'handlers');

async function readBody(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let phase = { ids: new Set<string>(), invalid: 0, expected: 0, done: () => {} };
let receiverUrl: string | undefined;

/**
 * A merchant's webhook endpoint: verifies each Standard Webhooks signature and counts distinct message ids
 * per phase. Keep-alive, answers 204 at once.
 */
async function startReceiver(server: BenchServer): Promise<string> {
  const verifier = new Webhook(server.webhookSecret);
  const receiver = createServer(async (req, res) => {
    const payload = await readBody(req);
    try {
      verifier.verify(payload, req.headers as Record<string, string>);
      phase.ids.add(String(req.headers['webhook-id']));
    } catch {
      phase.invalid++;
    }
    res.writeHead(204).end();
    if (phase.ids.size >= phase.expected) phase.done();
  });
  receiver.keepAliveTimeout = 30_000;
  return listen(receiver);
}

/** Starts counting the next `expected` distinct webhooks; true when they all arrived within `timeoutMs`. */
function newPhase(expected: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    phase = {
      ids: new Set(),
      invalid: 0,
      expected,
      done: () => {
        clearTimeout(timer);
        resolve(true);
      },
    };
  });
}

/** The webhook ceiling: the same receiver hit by plain signed POSTs over a keep-alive agent. */
async function signedPosts(
  server: BenchServer,
  count: number,
  concurrency: number,
): Promise<{ seconds: number; lost: number }> {
  const signer = new Webhook(server.webhookSecret);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const ids = Array.from({ length: count }, () => newId('evt'));
  const all = newPhase(count, 60_000);
  const started = performance.now();
  await inParallel(ids, concurrency, async (id) => {
    const timestamp = new Date();
    const payload = JSON.stringify({
      type: 'payment_link.canceled',
      timestamp: timestamp.toISOString(),
      data: { id },
    });
    await new Promise<void>((resolve, reject) => {
      const req = request(
        `${receiverUrl}/webhooks`,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signer.sign(id, timestamp, payload),
          },
        },
        (res) => res.resume().on('end', resolve),
      );
      req.on('error', reject);
      req.end(payload);
    });
  });
  await all;
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { seconds, lost: count - phase.ids.size };
}

/**
 * N events through the real path: links with a webhook_url on the receiver, canceled (each transition stores
 * its event), then every event handed to the queue at once; timed until the receiver has them all.
 */
async function deliveries(
  server: BenchServer,
  count: number,
  concurrency: number,
): Promise<{
  seconds: number;
  lost: number;
  sendErrors: number;
  firstSendError: string | undefined;
  events: LinkEvent[];
}> {
  const links = linkRepository();
  const checkoutBase = server.stack.checkoutBase;
  const events: LinkEvent[] = [];
  await inParallel(Array.from({ length: count }), concurrency, async () => {
    const now = new Date();
    const link = newPaymentLink(
      { account: server.account, mode: 'test' },
      { amount: { value: '10.00', currency: 'EUR' }, webhook_url: `${receiverUrl}/webhooks` },
      now,
    );
    await links.create(link);
    const canceled = cancel(link, now);
    if (!canceled) throw new Error('an open link could not be canceled');
    // As applyTransition records it: the event carries the link's checkout_url.
    const transition = withEventCheckoutUrl(canceled, checkoutBase);
    await links.commit(transition);
    events.push(transition.event);
  });
  const all = newPhase(count, 60_000 + count * 20);
  const started = performance.now();
  let sendErrors = 0;
  let firstSendError: string | undefined;
  // Handed over as each committed transition hands its event (committed: true), ten to a request: the cost
  // measured is delivery's, not that of N separate producers.
  const batches = Array.from({ length: Math.ceil(count / 10) }, (_, index) =>
    events.slice(index * 10, index * 10 + 10),
  );
  await inParallel(batches, concurrency, async (batch) => {
    const sent = await sqsClient()
      .send(
        new SendMessageBatchCommand({
          QueueUrl: config().EVENTS_QUEUE_URL,
          Entries: batch.map((event, index) => ({
            Id: String(index),
            ...eventMessage({ ...event, committed: true }),
          })),
        }),
      )
      .catch((error: Error) => ({ Failed: batch.map(() => ({ Message: error.message })) }));
    for (const failure of sent.Failed ?? []) {
      sendErrors++;
      firstSendError ??= failure.Message;
    }
  });
  if (sendErrors === count) phase.done(); // nothing is on its way: do not wait for the timeout
  await all;
  const seconds = (performance.now() - started) / 1000;
  return { seconds, lost: count - phase.ids.size, sendErrors, firstSendError, events };
}

/**
 * The floor under any delivery that records its attempts (docs/webhooks.md#the-delivery-log): one conditional UpdateItem
 * per event appending an attempt, on the same event items in the same embedded DynamoDB, at the same
 * concurrency; no queue, no HTTP, no signing.
 */
async function recordingFloor(
  server: BenchServer,
  events: LinkEvent[],
  concurrency: number,
): Promise<number> {
  const attempt = [{ at: new Date().toISOString(), status_code: 204, duration_ms: 1, error: null }];
  const started = performance.now();
  const documentClient = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: server.stack.dynamodbEndpoint }),
  );
  await inParallel(events, concurrency, (event) =>
    documentClient.send(
      new UpdateCommand({
        TableName: server.stack.tableName,
        Key: keys.event(event.id, event.mode),
        UpdateExpression: 'SET attempts = list_append(attempts, :attempt)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':attempt': attempt },
      }),
    ),
  );
  return events.length / ((performance.now() - started) / 1000);
}

async function webhooks(
  server: BenchServer,
  count: number,
  concurrency: number,
): Promise<WebhookBenchResult> {
  if (!existsSync(join(handlersDir, 'deliver-webhook.ts'))) return { available: false };
  receiverUrl ??= await startReceiver(server);
  const ceilingRun = await signedPosts(server, count, concurrency);
  const ceilingInvalid = phase.invalid;
  const delivered = await deliveries(server, count, concurrency);
  const deliveryInvalid = phase.invalid;
  return {
    available: true,
    count,
    ceiling: { rps: count / ceilingRun.seconds, lost: ceilingRun.lost, invalid: ceilingInvalid },
    recordingFloor: { rps: await recordingFloor(server, delivered.events, concurrency) },
    delivery: {
      rps: (count - delivered.lost) / delivered.seconds,
      lost: delivered.lost,
      invalid: deliveryInvalid,
      sendErrors: delivered.sendErrors,
      firstSendError: delivered.firstSendError,
    },
  };
}

/**
 * Webhook delivery: N events through SQS and deliver-webhook to a verifying receiver, judged against the
 * recording floor (one UpdateItem per event); plain signed POSTs to the same receiver are shown beside it.
 */
export default {
  serve: (server, { count, concurrency }) => webhooks(server, count, concurrency),

  async measure(bench) {
    const { webhooks: count, concurrency } = bench.plan;
    const result = await bench.serve<WebhookBenchResult>({ count, concurrency });
    bench.record('webhooks', result);
    if (!result.available) {
      bench.row({
        measure: 'webhook delivery',
        subject: 'deliver-webhook',
        value: 'n/a: not built yet',
        baseline: '',
      });
      return;
    }
    const lost = result.delivery.lost + result.delivery.invalid;
    bench.row({
      measure: `webhook delivery (${result.count} events)`,
      subject: 'SQS → deliver-webhook → receiver',
      value: `${fmt(result.delivery.rps)} events/s, ${lost} lost${
        result.delivery.sendErrors
          ? ` (${result.delivery.sendErrors} refused by the queue: ${result.delivery.firstSendError})`
          : ''
      }`,
      baseline: `${fmt(result.ceiling.rps)} signed POST/s, ${result.ceiling.lost + result.ceiling.invalid} lost`,
      ratio: lost ? 0 : result.delivery.rps / result.ceiling.rps,
    });
    // The budget: judged against what no delivery can beat here, since every attempt is recorded
    // (docs/webhooks.md#the-delivery-log); the row above, against plain POSTs, is for comparison.
    bench.row({
      measure: 'webhook delivery vs floor',
      subject: 'the one write per attempt alone',
      value: `${fmt(result.delivery.rps)} events/s, ${lost} lost`,
      baseline: `${fmt(result.recordingFloor.rps)} UpdateItem/s (${fmt(result.recordingFloor.rps / result.ceiling.rps, 2)}× the POST ceiling)`,
      ratio: lost ? 0 : result.delivery.rps / result.recordingFloor.rps,
      budget: { min: budgets.webhookThroughput },
    });
  },
} satisfies BenchRow<{ count: number; concurrency: number }, WebhookBenchResult>;
