import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  type Message,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveWithGroups, startSqsWithClient } from '../support/embedded-sqs-client.ts';

/*
 * The embedded SQS's fair queues (lib/local/fair-queue.ts), through the real SDK: the rules AWS documents for
 * standard queues whose messages carry a MessageGroupId, which webhook delivery relies on (docs/webhooks.md,
 * "Queue order").
 */

let client: SQSClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ client, stop } = await startSqsWithClient());
});
afterAll(async () => {
  await stop();
});

async function newQueue(): Promise<string> {
  const { QueueUrl } = await client.send(
    new CreateQueueCommand({ QueueName: `fair-${randomUUID()}`, Attributes: { VisibilityTimeout: '60' } }),
  );
  return QueueUrl as string;
}

/** Sends `count` messages of `tenant` (bodies `<tenant>-<n>`), ten to a request. */
async function send(queueUrl: string, tenant: string | undefined, count: number) {
  for (let start = 0; start < count; start += 10) {
    const size = Math.min(10, count - start);
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Array.from({ length: size }, (_, index) => ({
          Id: String(index),
          MessageBody: `${tenant ?? 'none'}-${start + index}`,
          ...(tenant && { MessageGroupId: tenant }),
        })),
      }),
    );
  }
}

const receive = (queueUrl: string) => receiveWithGroups(client, queueUrl);

async function remove(queueUrl: string, messages: readonly Message[]) {
  await client.send(
    new DeleteMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: messages.map((message, index) => ({
        Id: String(index),
        ReceiptHandle: message.ReceiptHandle ?? '',
      })),
    }),
  );
}

const bodiesOf = (messages: readonly Message[]) => messages.map((message) => message.Body);
const tenantsOf = (messages: readonly Message[]) =>
  [...new Set(messages.map((message) => message.Body?.split('-')[0]))].join(',');

describe('the embedded SQS as a fair queue', () => {
  it('keeps the MessageGroupId a standard queue’s message was sent with, and returns it', async () => {
    const queueUrl = await newQueue();
    await client.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'one', MessageGroupId: 'acct_a:test' }),
    );
    await send(queueUrl, 'acct_b:live', 1);

    const messages = await receive(queueUrl);

    expect(messages.map((message) => message.Attributes?.MessageGroupId)).toEqual([
      'acct_a:test',
      'acct_b:live',
    ]);
  });

  it('hands messages out in the order they came while no tenant is noisy', async () => {
    const queueUrl = await newQueue();
    await send(queueUrl, 'a', 5);
    await send(queueUrl, 'b', 5);
    await send(queueUrl, 'a', 5);

    const messages = [...(await receive(queueUrl)), ...(await receive(queueUrl))];

    expect(bodiesOf(messages)).toEqual([
      ...['a-0', 'a-1', 'a-2', 'a-3', 'a-4'],
      ...['b-0', 'b-1', 'b-2', 'b-3', 'b-4'],
      ...['a-0', 'a-1', 'a-2', 'a-3', 'a-4'],
    ]);
  });

  it('hands out a quiet tenant’s messages first while another holds 30 or more in flight', async () => {
    const queueUrl = await newQueue();
    await send(queueUrl, 'busy', 100);
    await send(queueUrl, 'quiet', 10);
    const held = [...(await receive(queueUrl)), ...(await receive(queueUrl)), ...(await receive(queueUrl))];
    expect(tenantsOf(held)).toBe('busy');

    const next = await receive(queueUrl);

    expect(tenantsOf(next)).toBe('quiet');
    expect(bodiesOf(next)).toEqual(Array.from({ length: 10 }, (_, index) => `quiet-${index}`));
    // With no quiet message left, the busy tenant's come next, in their own order.
    expect(bodiesOf(await receive(queueUrl))).toEqual(
      Array.from({ length: 10 }, (_, index) => `busy-${30 + index}`),
    );
  });

  it('treats a tenant that took most of the recent processing time as noisy, with no message in flight', async () => {
    const queueUrl = await newQueue();
    await send(queueUrl, 'slow', 10);
    const slow = await receive(queueUrl);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await remove(queueUrl, slow);
    await send(queueUrl, 'slow', 10);
    await send(queueUrl, 'fresh', 10);

    expect(tenantsOf(await receive(queueUrl))).toBe('fresh');
  });

  it('serves noisy tenants the one with fewest messages in flight first, and messages without a group as tenants of their own', async () => {
    const queueUrl = await newQueue();
    await send(queueUrl, 'heavy', 70);
    for (let batch = 0; batch < 4; batch++) await receive(queueUrl);
    await send(queueUrl, 'light', 40);
    await send(queueUrl, undefined, 1);
    // heavy holds 40 in flight; light, quiet until it holds 30, is served first meanwhile.
    const light = [];
    for (let batch = 0; batch < 3; batch++) light.push(...(await receive(queueUrl)));
    expect(tenantsOf(light)).toBe('light');

    const next = await receive(queueUrl);

    expect(bodiesOf(next)).toEqual([
      'none-0',
      ...Array.from({ length: 9 }, (_, index) => `light-${30 + index}`),
    ]);
  });
});
