import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConcurrentModificationError } from '../../domain/errors.ts';
import type { LinkEvent, PaymentLink, Transition } from '../../domain/payment-link.ts';
import type { Mode } from '../../domain/principal.ts';
import { OUTBOX_GRACE_MS } from '../../domain/webhook.ts';
import type { LinkRepository } from '../../ports/link-repository.ts';
import { keys, outboxKeys, withoutKeys } from './table-schema.ts';

function linkItem(link: PaymentLink) {
  return {
    ...keys.link(link.id, link.mode),
    gsi1pk: keys.linksOfAccount(link.account, link.mode),
    gsi1sk: `${link.created_at}#${link.id}`,
    ...link,
  };
}

/**
 * The stored event: `status` and `attempts` are the delivery log that webhook delivery appends to. It enters
 * the outbox (gsi2) at once, due a grace period after its creation: if the queue send after the commit never
 * happens, the outbox sweeper queues it then (docs/webhooks.md, "Design").
 */
export function eventItem(event: LinkEvent) {
  return {
    ...keys.event(event.id, event.mode),
    gsi1pk: keys.eventsOfLink(event.link_id, event.mode),
    gsi1sk: `${event.created_at}#${event.id}`,
    ...outboxKeys(event.id, new Date(Date.parse(event.created_at) + OUTBOX_GRACE_MS)),
    ...event,
    status: 'pending',
    attempts: [],
    delivery_seq: 0,
    round_attempts: 0,
  };
}

export class DynamoLinkRepository implements LinkRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async create(link: PaymentLink): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: linkItem(link),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string, mode: Mode): Promise<PaymentLink | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.link(id, mode), ConsistentRead: true }),
    );
    return Item ? withoutKeys<PaymentLink>(Item) : undefined;
  }

  async commit({ before, after, event }: Transition): Promise<void> {
    // No multi-item transaction: the event is written first and only counts once the link names it
    // (see PaymentLink.event_ids), which keeps the same code correct on DynamoDB and the embedded store.
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: eventItem(event),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: linkItem(after),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': before.version },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        await this.client
          .send(new DeleteCommand({ TableName: this.tableName, Key: keys.event(event.id, event.mode) }))
          .catch(() => undefined); // an orphan left behind is harmless: nothing delivers an unnamed event
        throw new ConcurrentModificationError(
          `Payment link ${before.id} changed while it was being updated.`,
        );
      }
      throw error;
    }
  }

  async saveSession(before: PaymentLink, after: PaymentLink): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(before.id, before.mode),
          UpdateExpression: 'SET psp_session = :session, version = :next',
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: {
            ':session': after.psp_session,
            ':next': after.version,
            ':expected': before.version,
          },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentModificationError(
          `Payment link ${before.id} changed while its session was saved.`,
        );
      }
      throw error;
    }
  }
}
