import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EventQueue, EventReference } from '../../ports/event-queue.ts';

/** The message names the stored event only: the delivery function always reads the truth from the table. */
export function eventMessageBody(event: EventReference): string {
  return JSON.stringify({
    event_id: event.id,
    mode: event.mode,
    delivery_seq: event.delivery_seq ?? 0,
    ...(event.committed && { committed: true }),
  });
}

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
        MessageBody: eventMessageBody(event),
        DelaySeconds: options.delaySeconds ? Math.min(900, Math.max(0, options.delaySeconds)) : undefined,
      }),
    );
  }
}
