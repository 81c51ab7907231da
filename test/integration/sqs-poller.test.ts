import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_LONG_POLL_SECONDS, startQueueConsumers, startSqsPoller } from '../../lib/local/sqs-poller.ts';
import { eventsQueueVisibilitySeconds, queueConsumers, timeoutSecondsOf } from '../../lib/routes.ts';
import { startSqsWithClient } from '../support/embedded-sqs-client.ts';
import { eventually } from '../support/eventually.ts';

let client: SQSClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSqsWithClient());
});
afterAll(async () => {
  await stop();
});

/**
 * A queue with the events queue's visibility timeout: a record handed out is not handed out again while the
 * handler may still run, however slow the machine. A test that needs a record back ends its visibility itself
 * (`visibleAgain`) instead of waiting for the timeout.
 */
async function queue(name: string) {
  const queueUrl = (
    await client.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { VisibilityTimeout: String(eventsQueueVisibilitySeconds()) },
      }),
    )
  ).QueueUrl as string;
  const arn = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { queueUrl, queueArn: arn.Attributes?.QueueArn as string };
}

/** What SQS does when a record's visibility timeout ends: the record is handed out again. */
async function visibleAgain(queueUrl: string, receiptHandle: string) {
  await client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: 0,
    }),
  );
}

async function depth(queueUrl: string): Promise<number> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

describe('the local SQS event source', () => {
  it('invokes the handler with SQS records of the real shape', async () => {
    const { queueUrl, queueArn } = await queue('shapes');
    const events: SQSEvent[] = [];
    const stop = startSqsPoller({
      client,
      queueUrl,
      queueArn,
      batchSize: 10,
      functionName: 'deliver-webhook',
      timeoutMs: timeoutSecondsOf('deliver-webhook') * 1000,
      handler: async () => async (event) => {
        events.push(event);
        return { batchItemFailures: [] };
      },
    });
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"hello":1}' }));
    await eventually(() => events.length > 0, { what: 'an invocation' });
    await stop();
    expect(events[0]?.Records[0]).toMatchObject({
      messageId: expect.any(String),
      receiptHandle: expect.any(String),
      body: '{"hello":1}',
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: expect.any(String) },
      md5OfBody: expect.any(String),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
    });
    expect(await depth(queueUrl)).toBe(0);
  });

  it('deletes the records that succeeded and hands back only the reported failures after their visibility timeout', async () => {
    const { queueUrl, queueArn } = await queue('partial');
    const seen: { body: string; receiveCount: string }[] = [];
    const reportedFailed: string[] = [];
    const stop = startSqsPoller({
      client,
      queueUrl,
      queueArn,
      batchSize: 10,
      functionName: 'deliver-webhook',
      timeoutMs: timeoutSecondsOf('deliver-webhook') * 1000,
      handler: async () => async (event) => {
        for (const record of event.Records) {
          seen.push({ body: record.body, receiveCount: record.attributes.ApproximateReceiveCount });
        }
        const failing = event.Records.filter((record) => record.body === 'b' && !reportedFailed.length);
        reportedFailed.push(...failing.map((record) => record.receiptHandle));
        return { batchItemFailures: failing.map((record) => ({ itemIdentifier: record.messageId })) };
      },
    });
    for (const body of ['a', 'b', 'c'])
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    // a and c deleted, b left on the queue (in flight until its visibility timeout ends).
    await eventually(async () => seen.length === 3 && (await depth(queueUrl)) === 1, {
      what: 'the succeeded records deleted',
    });
    await visibleAgain(queueUrl, reportedFailed[0] as string);
    await eventually(async () => seen.filter((entry) => entry.body === 'b').length === 2, {
      what: 'the failed record handed back',
    });
    await eventually(async () => (await depth(queueUrl)) === 0, { what: 'the retried record deleted' });
    await stop();
    expect(seen.filter((entry) => entry.body === 'a')).toHaveLength(1);
    expect(seen.filter((entry) => entry.body === 'c')).toHaveLength(1);
    expect(seen.filter((entry) => entry.body === 'b').map((entry) => entry.receiveCount)).toEqual(['1', '2']);
  });

  it('leaves the whole batch on the queue when the invocation throws', async () => {
    const { queueUrl, queueArn } = await queue('crash');
    let invocations = 0;
    let receiptHandle = '';
    const stop = startSqsPoller({
      client,
      queueUrl,
      queueArn,
      batchSize: 10,
      functionName: 'deliver-webhook',
      timeoutMs: timeoutSecondsOf('deliver-webhook') * 1000,
      handler: async () => async (event) => {
        invocations++;
        if (invocations === 1) {
          receiptHandle = event.Records[0]?.receiptHandle ?? '';
          throw new Error('crash');
        }
        return { batchItemFailures: [] };
      },
    });
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }));
    await eventually(() => invocations === 1, { what: 'the first invocation' });
    expect(await depth(queueUrl)).toBe(1);
    await visibleAgain(queueUrl, receiptHandle);
    await eventually(() => invocations >= 2, { what: 'the record handed back' });
    await eventually(async () => (await depth(queueUrl)) === 0, { what: 'the record deleted' });
    await stop();
    expect(invocations).toBe(2);
  });

  it('adds invocations beyond the first five while messages wait behind busy ones, up to its maximum', async () => {
    const { queueUrl, queueArn } = await queue('scaling');
    let running = 0;
    let mostRunning = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stop = startSqsPoller({
      client,
      queueUrl,
      queueArn,
      batchSize: 2,
      concurrency: 8,
      functionName: 'deliver-webhook',
      timeoutMs: timeoutSecondsOf('deliver-webhook') * 1000,
      handler: async () => async () => {
        running++;
        mostRunning = Math.max(mostRunning, running);
        await gate;
        running--;
        return { batchItemFailures: [] };
      },
    });
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: 10 }, (_, index) => ({ Id: String(index), MessageBody: `m${index}` })),
      }),
    );
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: 10 }, (_, index) => ({ Id: String(index), MessageBody: `n${index}` })),
      }),
    );
    await eventually(() => running === 8, { what: 'eight invocations at once' });
    release();
    await eventually(async () => (await depth(queueUrl)) === 0, { what: 'every record deleted' });
    await stop();
    expect(mostRunning).toBe(8);
  });
});

/**
 * A queue that never has a message, as a client sees it: a long poll waits until it is aborted, a look (no wait)
 * answers at once. Records each receive's wait.
 */
function emptyQueueClient(waits: number[], messagesForLongPolls = 0): SQSClient {
  let handedOut = 0;
  return {
    send: (command: { input: { WaitTimeSeconds?: number } }, options?: { abortSignal?: AbortSignal }) => {
      const wait = command.input.WaitTimeSeconds ?? 0;
      waits.push(wait);
      if (wait > 0 && handedOut < messagesForLongPolls) {
        handedOut++;
        return Promise.resolve({
          Messages: [{ MessageId: `m${handedOut}`, ReceiptHandle: 'r', Body: '{}' }],
        });
      }
      if (wait === 0) return Promise.resolve({ Messages: [] });
      return new Promise((resolve) =>
        options?.abortSignal?.addEventListener('abort', () => resolve({ Messages: [] })),
      );
    },
  } as unknown as SQSClient;
}

const idlePoller = (waits: number[], handler: () => Promise<undefined>, messagesForLongPolls = 0) =>
  startSqsPoller({
    client: emptyQueueClient(waits, messagesForLongPolls),
    queueUrl: 'http://queue',
    queueArn: 'arn:aws:sqs:local:000000000000:queue',
    batchSize: 10,
    concurrency: 10,
    functionName: 'deliver-webhook',
    timeoutMs: timeoutSecondsOf('deliver-webhook') * 1000,
    handler: async () => handler,
  });

describe('an idle local SQS event source', () => {
  it('makes no look beside a loop waiting in a long poll, looks once the long pollers are all busy, and stops at once', async () => {
    vi.useFakeTimers();
    try {
      const waiting: number[] = [];
      const stopWaiting = idlePoller(waiting, async () => undefined);
      await vi.advanceTimersByTimeAsync(10_000);
      // Five long polls, each handed whatever arrives; before, the five other loops looked every second (50 looks).
      expect(waiting).toEqual([1, 1, 1, 1, 1]);
      // Stopping ends the long polls and the idle loops' pauses at once: no second passes.
      let stopped = false;
      const stopping = stopWaiting().then(() => {
        stopped = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(stopped).toBe(true);
      await stopping;

      // Each long poll hands a message to an invocation that runs on: nobody waits on the queue, so the other
      // loops look (a backlog the busy loops cannot see is found that way).
      const busy: number[] = [];
      let release = () => {};
      const invocations = new Promise<undefined>((resolve) => {
        release = () => resolve(undefined);
      });
      const stopBusy = idlePoller(busy, () => invocations, 5);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(busy.filter((wait) => wait === 0)).toHaveLength(5);
      release();
      await stopBusy();
    } finally {
      vi.useRealTimers();
    }
  });

  it('waits in each receive of the local stack as long as Lambda’s event source does', async () => {
    const waits: number[] = [];
    const server = createServer((request) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      // Never answered: a long poll of an empty queue, until the consumers stop.
      request.on('end', () => waits.push(JSON.parse(body).WaitTimeSeconds));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const stopConsumers = startQueueConsumers(queueConsumers, {
      endpoint,
      queues: Object.fromEntries(
        queueConsumers.map((consumer) => [consumer.queue, { queueUrl: `${endpoint}/q`, queueArn: 'arn:q' }]),
      ),
      loadHandler: async () => {
        throw new Error('no message to handle');
      },
    });
    await eventually(() => waits.length >= 5, { what: 'the first long polls' });
    await stopConsumers();
    server.closeAllConnections();
    server.close();
    expect(LOCAL_LONG_POLL_SECONDS).toBe(20);
    expect(new Set(waits)).toEqual(new Set([LOCAL_LONG_POLL_SECONDS]));
  });
});
