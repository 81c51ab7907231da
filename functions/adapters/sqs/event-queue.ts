import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { LinkEvent } from '../../domain/payment-link.ts';
import type { EventQueue } from '../../ports/event-queue.ts';

/** The message names the stored event only: the delivery function always reads the truth from the table. */
export class SqsEventQueue implements EventQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;

  constructor(client: SQSClient, queueUrl: string) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  async publish(event: Pick<LinkEvent, 'id' | 'mode'>): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ event_id: event.id, mode: event.mode }),
      }),
    );
  }
}
