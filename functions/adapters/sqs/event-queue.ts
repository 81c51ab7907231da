import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { EventQueue, EventReference } from '../../ports/event-queue.ts';

/**
 * The message names the stored event only: the delivery function always reads the truth from the table. Its
 * `MessageGroupId` names the event's tenant (account and mode; `ACCOUNT_PATTERN` keeps it within SQS's
 * characters and 128), which makes the standard queue an SQS fair queue: while one tenant holds a
 * disproportionate share of the consumers, the queue hands out the other tenants' messages first
 * (docs/webhooks.md, "Queue order"). On a standard queue the group orders nothing and locks nothing.
 */
export function eventMessage(event: EventReference): { MessageBody: string; MessageGroupId: string } {
  return {
    MessageBody: JSON.stringify(
      event.recovery
        ? {
            recovery_of: event.id,
            account: event.account,
            mode: event.mode,
            delivery_seq: event.delivery_seq ?? 0,
          }
        : {
            event_id: event.id,
            mode: event.mode,
            delivery_seq: event.delivery_seq ?? 0,
            ...(event.committed && { committed: true }),
            ...(event.endpoint_id && { endpoint_id: event.endpoint_id }),
          },
    ),
    MessageGroupId: `${event.account}:${event.mode}`,
  };
}

/** SQS delays a message by at most 900 seconds. */
const delaySecondsOf = (options: { delaySeconds?: number }) =>
  options.delaySeconds ? Math.min(900, Math.max(0, options.delaySeconds)) : undefined;

/** Hands events to an SQS queue, one message each. */
export class SqsEventQueue implements EventQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;

  constructor(client: SQSClient, queueUrl: string) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  async publish(event: EventReference, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        ...eventMessage(event),
        DelaySeconds: delaySecondsOf(options),
      }),
    );
  }
}

/** SendMessageBatch takes at most this many messages. */
const SEND_BATCH_LIMIT = 10;

interface PendingMessage {
  entry: Omit<SendMessageBatchRequestEntry, 'Id'>;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Hands events to an SQS queue, gathering the messages published in one turn of the event loop into
 * `SendMessageBatch` requests of up to ten. Webhook delivery re-sends the records of a batch it retries or holds
 * back at the same moment: one request for them instead of one each (SQS bills a batch as one request). Each
 * `publish` still settles with its own message's outcome, so a message the queue refused fails only its record.
 */
export class BatchingSqsEventQueue implements EventQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private pending: PendingMessage[] = [];

  constructor(client: SQSClient, queueUrl: string) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  publish(event: EventReference, options: { delaySeconds?: number } = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({
        entry: { ...eventMessage(event), DelaySeconds: delaySecondsOf(options) },
        resolve,
        reject,
      });
      if (this.pending.length >= SEND_BATCH_LIMIT) this.sendPending();
      else if (this.pending.length === 1) setImmediate(() => this.sendPending());
    });
  }

  private sendPending(): void {
    const batch = this.pending.splice(0, SEND_BATCH_LIMIT);
    if (!batch.length) return;
    this.client
      .send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map(({ entry }, index) => ({ ...entry, Id: String(index) })),
        }),
      )
      .then(
        ({ Successful, Failed }) => {
          const sent = new Set((Successful ?? []).map((success) => success.Id));
          const refused = new Map((Failed ?? []).map((failure) => [failure.Id, failure]));
          batch.forEach((message, index) => {
            const id = String(index);
            if (sent.has(id)) {
              message.resolve();
              return;
            }
            const failure = refused.get(id);
            const reason = failure ? `${failure.Code}: ${failure.Message}` : 'no answer for it';
            message.reject(new Error(`The queue refused the message (${reason}).`));
          });
        },
        (error: Error) => {
          for (const message of batch) message.reject(error);
        },
      );
  }
}
