import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchingSqsEventQueue } from '../../functions/adapters/sqs/event-queue.ts';
import { newId } from '../../functions/domain/ids.ts';
import type { EmbeddedSqs } from '../../lib/local/embedded-sqs.ts';
import { receiveWithGroups, startSqsWithClient } from '../support/embedded-sqs-client.ts';

let sqs: EmbeddedSqs;
let client: SQSClient;
let stop: () => Promise<void>;
/** The SQS operations the client made, in order. */
const operations: string[] = [];

beforeAll(async () => {
  ({ sqs, client, stop } = await startSqsWithClient());
  client.middlewareStack.add(
    (next, context) => (args) => {
      operations.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'recordOperations' },
  );
});
afterAll(async () => {
  await stop();
});

async function newQueue(): Promise<string> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: `events-${randomUUID()}` }));
  return QueueUrl as string;
}

/** Every message on the queue (none is deleted: the queue's visibility timeout outlasts the test). */
async function messages(queueUrl: string): Promise<Array<{ body: string; group?: string }>> {
  const found: Array<{ body: string; group?: string }> = [];
  for (;;) {
    const received = await receiveWithGroups(client, queueUrl);
    if (!received.length) return found;
    found.push(
      ...received.map((message) => ({
        body: message.Body ?? '',
        group: message.Attributes?.MessageGroupId,
      })),
    );
  }
}

describe('the batching events queue (webhook delivery re-sends)', () => {
  it('sends the messages published together in batches of ten, each publish settling with its own message', async () => {
    // Prepare
    const queueUrl = await newQueue();
    const queue = new BatchingSqsEventQueue(client, queueUrl);
    const ids = Array.from({ length: 12 }, () => newId('evt'));
    // SQS refuses this one message (a character outside what a message may hold), not its batch.
    const refused = `${newId('evt')}\uffff`;
    operations.length = 0;
    // Act
    const outcomes = await Promise.allSettled([
      ...ids.map((id) =>
        queue.publish({ id, account: 'acct_a', mode: 'test', delivery_seq: 1, committed: true }),
      ),
      queue.publish({ id: refused, account: 'acct_a', mode: 'test' }),
    ]);
    // Assess
    expect(operations).toEqual(['SendMessageBatchCommand', 'SendMessageBatchCommand']);
    expect(outcomes.slice(0, ids.length).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    expect(outcomes[ids.length]).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringContaining('InvalidMessageContents') },
    });
    const received = await messages(queueUrl);
    const sent = received.map((message) => JSON.parse(message.body));
    expect(sent.map((message) => message.event_id).sort()).toEqual([...ids].sort());
    expect(sent[0]).toEqual({ event_id: expect.any(String), mode: 'test', delivery_seq: 1, committed: true });
    // Each message names its tenant, by which the fair queue keeps one merchant's backlog from holding others.
    expect(new Set(received.map((message) => message.group))).toEqual(new Set(['acct_a:test']));
  });

  it('fails every publish of a batch the queue did not take', async () => {
    // Prepare
    const queue = new BatchingSqsEventQueue(client, `${sqs.endpoint}/000000000000/no-such-queue`);
    // Act
    const outcomes = await Promise.allSettled([
      queue.publish({ id: newId('evt'), account: 'acct_a', mode: 'test' }),
      queue.publish({ id: newId('evt'), account: 'acct_a', mode: 'live' }, { delaySeconds: 5 }),
    ]);
    // Assess
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });
});
