/**
 * The server side of the benchmark, in its own process (forked by test/bench/run.ts so the load generator
 * does not share its event loop): the local stack, and the ceilings it is compared with on the same embedded
 * DynamoDB. Commands arrive over IPC; each gets one answer message.
 */
import { existsSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { eventMessageBody } from '../../functions/adapters/sqs/event-queue.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';
import { config } from '../../functions/config.ts';
import { apiKeyRepository, linkRepository } from '../../functions/dependencies.ts';
import { newId } from '../../functions/domain/ids.ts';
import { cancel, type LinkEvent, newPaymentLink } from '../../functions/domain/payment-link.ts';
import { issueApiKey } from '../../functions/use-cases/api-keys.ts';
import { startLocalStack } from '../../lib/local/local-stack.ts';
import {
  type BenchReply,
  type BenchRequest,
  NAVIGATION_HEADERS,
  type WebhookBenchResult,
} from './protocol.ts';

const handlersDir = join(import.meta.dirname, '..', '..', 'functions', 'handlers');
const ACCOUNT = 'bench';

/** What a merchant typically sends: every field but `expires_at`. */
const CREATE_BODY = JSON.stringify({
  amount: { value: '10.00', currency: 'EUR' },
  description: 'Order 1001',
  redirect_url: 'https://shop.example.com/thanks',
  webhook_url: 'https://shop.example.com/webhooks',
  metadata: { order_id: '1001' },
});

const send = (message: BenchReply) => process.send?.(message);

async function readBody(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// The limiter runs as in production (its cost is part of what is measured), with a limit the load never reaches.
process.env.RATE_LIMIT_REQUESTS = String(1_000_000_000);
const stack = await startLocalStack({ port: 0 });
const issued = await issueApiKey(apiKeyRepository(), ACCOUNT, 'test');
const authorization = `Bearer ${issued.api_key}`;

// One real link through the API: its stored item is what the ceiling writes, so both write the same bytes.
const created = await fetch(`${stack.baseUrl}/v1/payment-links`, {
  method: 'POST',
  headers: { authorization, 'content-type': 'application/json' },
  body: CREATE_BODY,
});
if (created.status !== 201)
  throw new Error(`create-link answered ${created.status}: ${await created.text()}`);
const { id: sampleId } = (await created.json()) as { id: string };
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: stack.dynamodbEndpoint }), {
  marshallOptions: { removeUndefinedValues: true },
});
const { Item: template } = await documentClient.send(
  new GetCommand({ TableName: stack.tableName, Key: keys.link(sampleId, 'test') }),
);
if (!template) throw new Error('the sample link was not stored');

/** The create-link ceiling: a bare node:http server doing one PutItem of the same item, nothing else. */
const ceiling = createServer(async (req, res) => {
  await readBody(req);
  const id = newId('pl');
  const item = { ...template, ...keys.link(id, 'test'), id, gsi1sk: `${template.created_at}#${id}` };
  try {
    await documentClient.send(
      new PutCommand({
        TableName: stack.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    res.writeHead(201, { 'content-type': 'application/json', location: `/v1/payment-links/${id}` });
    res.end(JSON.stringify(item));
  } catch {
    res.writeHead(500).end();
  }
});
const ceilingUrl = await listen(ceiling);

/**
 * A merchant's webhook endpoint: verifies each Standard Webhooks signature and counts distinct message ids
 * per phase. Keep-alive, answers 204 at once.
 */
const verifier = new Webhook(issued.webhook_secret);
let phase = { ids: new Set<string>(), invalid: 0, expected: 0, done: () => {} };
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
const receiverUrl = await listen(receiver);

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

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The webhook ceiling: the same receiver hit by plain signed POSTs over a keep-alive agent. */
async function signedPosts(count: number, concurrency: number): Promise<{ seconds: number; lost: number }> {
  const signer = new Webhook(issued.webhook_secret);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const ids = Array.from({ length: count }, () => newId('evt'));
  const all = newPhase(count, 60_000);
  const started = performance.now();
  await pool(ids, concurrency, async (id) => {
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
  const checkoutBase = stack.checkoutBase;
  const events: LinkEvent[] = [];
  await pool(Array.from({ length: count }), concurrency, async () => {
    const now = new Date();
    const link = newPaymentLink(
      { account: ACCOUNT, mode: 'test' },
      { amount: { value: '10.00', currency: 'EUR' }, webhook_url: `${receiverUrl}/webhooks` },
      now,
    );
    await links.create(link);
    const transition = cancel(link, checkoutBase, now);
    if (!transition) throw new Error('an open link could not be canceled');
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
  await pool(batches, concurrency, async (batch) => {
    const sent = await sqsClient()
      .send(
        new SendMessageBatchCommand({
          QueueUrl: config().EVENTS_QUEUE_URL,
          Entries: batch.map((event, index) => ({
            Id: String(index),
            MessageBody: eventMessageBody({ ...event, committed: true }),
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
async function recordingFloor(events: LinkEvent[], concurrency: number): Promise<number> {
  const attempt = [{ at: new Date().toISOString(), status_code: 204, duration_ms: 1, error: null }];
  const started = performance.now();
  await pool(events, concurrency, (event) =>
    documentClient.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.event(event.id, event.mode),
        UpdateExpression: 'SET attempts = list_append(attempts, :attempt)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':attempt': attempt },
      }),
    ),
  );
  return events.length / ((performance.now() - started) / 1000);
}

async function webhooks(count: number, concurrency: number): Promise<WebhookBenchResult> {
  if (!existsSync(join(handlersDir, 'deliver-webhook.ts'))) return { available: false };
  const ceilingRun = await signedPosts(count, concurrency);
  const ceilingInvalid = phase.invalid;
  const delivered = await deliveries(count, concurrency);
  const deliveryInvalid = phase.invalid;
  return {
    available: true,
    count,
    ceiling: { rps: count / ceilingRun.seconds, lost: ceilingRun.lost, invalid: ceilingInvalid },
    recordingFloor: { rps: await recordingFloor(delivered.events, concurrency) },
    delivery: {
      rps: (count - delivered.lost) / delivered.seconds,
      lost: delivered.lost,
      invalid: deliveryInvalid,
      sendErrors: delivered.sendErrors,
      firstSendError: delivered.firstSendError,
    },
  };
}

/** A checkout page URL for an open link whose PSP session exists (the first visit creates it). */
async function checkoutTarget(): Promise<string | undefined> {
  if (!existsSync(join(handlersDir, 'checkout-page.ts'))) return undefined;
  const response = await fetch(`${stack.baseUrl}/v1/payment-links`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: CREATE_BODY,
  });
  if (response.status !== 201) throw new Error(`create-link answered ${response.status}`);
  const { id } = (await response.json()) as { id: string };
  const url = `${stack.baseUrl}/checkout/${id}`;
  const first = await fetch(url, { redirect: 'manual', headers: NAVIGATION_HEADERS });
  await first.arrayBuffer();
  if (first.status >= 400) throw new Error(`GET /checkout/{id} answered ${first.status}`);
  return url;
}

/**
 * A tenant over its limit: a key whose windows (the default 60 s) for the next 30 minutes already hold the
 * whole limit, so every request it makes is refused, as in a flood from a misbehaving merchant.
 */
async function rateLimitedTarget(): Promise<{ url: string; authorization: string }> {
  const flooder = await issueApiKey(apiKeyRepository(), `${ACCOUNT}-flood`, 'test');
  const { RATE_LIMIT_REQUESTS, RATE_LIMIT_WINDOW_SECONDS } = config();
  const first = Math.floor(Date.now() / 1000 / RATE_LIMIT_WINDOW_SECONDS) * RATE_LIMIT_WINDOW_SECONDS;
  for (let windowStart = first; windowStart < first + 1800; windowStart += RATE_LIMIT_WINDOW_SECONDS) {
    await documentClient.send(
      new PutCommand({
        TableName: stack.tableName,
        Item: {
          ...keys.rateWindow(`${ACCOUNT}-flood`, 'test', windowStart),
          count: RATE_LIMIT_REQUESTS,
          ttl: windowStart + RATE_LIMIT_WINDOW_SECONDS + 60,
        },
      }),
    );
  }
  const url = `${stack.baseUrl}/v1/payment-links`;
  const probe = await fetch(url, { headers: { authorization: `Bearer ${flooder.api_key}` } });
  await probe.arrayBuffer();
  if (probe.status !== 429) throw new Error(`the spent tenant was answered ${probe.status}`);
  return { url, authorization: `Bearer ${flooder.api_key}` };
}

process.on('message', async (message: BenchRequest) => {
  try {
    if (message.cmd === 'webhooks') {
      send({ type: 'webhooks', result: await webhooks(message.count, message.concurrency) });
    } else if (message.cmd === 'checkout') {
      send({ type: 'checkout', url: await checkoutTarget() });
    } else if (message.cmd === 'rateLimited') {
      send({ type: 'rateLimited', ...(await rateLimitedTarget()) });
    } else if (message.cmd === 'stop') {
      ceiling.closeAllConnections();
      receiver.closeAllConnections();
      ceiling.close();
      receiver.close();
      await stack.stop();
      process.exit(0);
    }
  } catch (error) {
    send({ type: 'error', message: (error as Error).stack ?? String(error) });
  }
});

send({
  type: 'ready',
  createUrl: `${stack.baseUrl}/v1/payment-links`,
  ceilingUrl,
  authorization,
  createBody: CREATE_BODY,
});
