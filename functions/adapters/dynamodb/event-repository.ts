import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { isId } from '../../domain/ids.ts';
import type { Mode } from '../../domain/principal.ts';
import type { DeliveryAttempt, DeliveryDecision, StoredEvent } from '../../domain/webhook.ts';
import type { EventKey, EventRepository, OutboxEntry } from '../../ports/event-repository.ts';
import { itemsOfShards } from './query.ts';
import { keys, outboxKeys, tableSchema, withoutKeys } from './table-schema.ts';

/** Runs a conditional update; false when its condition did not hold. */
async function conditionally(client: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<boolean> {
  try {
    await client.send(new UpdateCommand(input));
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** BatchGetItem reads at most this many keys per request. */
const BATCH_GET_LIMIT = 100;
/** Rounds of re-asking for keys DynamoDB left unprocessed (throttling) before the reads fail. */
const UNPROCESSED_ROUNDS = 5;

const keyOf = (ref: EventKey) => `${ref.mode}#${ref.id}`;

export class DynamoEventRepository implements EventRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async get(id: string, mode: Mode): Promise<StoredEvent | undefined> {
    if (!isId('evt', id)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.event(id, mode), ConsistentRead: true }),
    );
    return Item ? withoutKeys<StoredEvent>(Item) : undefined;
  }

  async getMany(refs: readonly EventKey[]): Promise<(StoredEvent | undefined)[]> {
    const wanted = [
      ...new Map(refs.filter((ref) => isId('evt', ref.id)).map((ref) => [keyOf(ref), ref])).values(),
    ];
    const chunks = Array.from({ length: Math.ceil(wanted.length / BATCH_GET_LIMIT) }, (_, index) =>
      wanted.slice(index * BATCH_GET_LIMIT, (index + 1) * BATCH_GET_LIMIT),
    );
    const found = new Map<string, StoredEvent>();
    for (const events of await Promise.all(chunks.map((chunk) => this.readChunk(chunk)))) {
      for (const event of events) found.set(keyOf(event), event);
    }
    return refs.map((ref) => found.get(keyOf(ref)));
  }

  /** One BatchGetItem, asking again (with a growing pause) for the keys DynamoDB left unprocessed. */
  private async readChunk(refs: readonly EventKey[]): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let keysToRead: Record<string, unknown>[] = refs.map((ref) => keys.event(ref.id, ref.mode));
    for (let round = 0; keysToRead.length; round++) {
      if (round === UNPROCESSED_ROUNDS) throw new Error('DynamoDB left event reads unprocessed.');
      if (round) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
      const { Responses, UnprocessedKeys } = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: keysToRead, ConsistentRead: true } },
        }),
      );
      for (const item of Responses?.[this.tableName] ?? []) events.push(withoutKeys<StoredEvent>(item));
      keysToRead = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    return events;
  }

  async finish(
    event: StoredEvent,
    attempt: DeliveryAttempt,
    decision: DeliveryDecision,
    dueAt: Date,
  ): Promise<boolean> {
    const key = keys.event(event.id, event.mode);
    const values: Record<string, unknown> = {
      ':attempt': [attempt],
      ':pending': 'pending',
      ':seq': event.delivery_seq,
      ':next': event.delivery_seq + 1,
      ':status': decision.status,
    };
    let update: string;
    if (decision.status === 'pending') {
      update =
        'SET attempts = list_append(attempts, :attempt), #status = :status, delivery_seq = :next, ' +
        'round_attempts = round_attempts + :one, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk';
      Object.assign(values, { ':one': 1 }, prefixed(outboxKeys(event.id, dueAt)));
    } else {
      update =
        'SET attempts = list_append(attempts, :attempt), #status = :status, delivery_seq = :next ' +
        'REMOVE gsi2pk, gsi2sk';
    }
    const owned = await conditionally(this.client, {
      TableName: this.tableName,
      Key: key,
      UpdateExpression: update,
      ConditionExpression: '#status = :pending AND delivery_seq = :seq',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: values,
    });
    if (owned) return true;
    // Another attempt for the same message finished first, or a redelivery began: this attempt still happened,
    // so it is logged, but the event's state is already someone else's decision.
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'SET attempts = list_append(attempts, :attempt)',
        ExpressionAttributeValues: { ':attempt': [attempt] },
      }),
    );
    return false;
  }

  async dropFromOutbox(event: StoredEvent): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.event(event.id, event.mode),
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      }),
    );
  }

  async dueEntries(now: Date, limit: number): Promise<OutboxEntry[]> {
    const items = await itemsOfShards(this.client, limit, (shard) => ({
      TableName: this.tableName,
      IndexName: tableSchema.gsi2.indexName,
      // `~` sorts after every character of an id, so entries due exactly now are included.
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
      ExpressionAttributeValues: { ':pk': keys.outbox(shard), ':now': `${now.toISOString()}~` },
      ProjectionExpression: '#id, #mode, delivery_seq, gsi2sk',
      ExpressionAttributeNames: { '#id': 'id', '#mode': 'mode' },
    }));
    return items.map((item) => ({
      id: item.id as string,
      mode: item.mode as Mode,
      delivery_seq: item.delivery_seq as number,
      due: item.gsi2sk as string,
    }));
  }

  postpone(entry: OutboxEntry, dueAt: Date): Promise<boolean> {
    return conditionally(this.client, {
      TableName: this.tableName,
      Key: keys.event(entry.id, entry.mode),
      UpdateExpression: 'SET gsi2sk = :gsi2sk',
      ConditionExpression: 'gsi2sk = :due AND delivery_seq = :seq',
      ExpressionAttributeValues: {
        ':gsi2sk': outboxKeys(entry.id, dueAt).gsi2sk,
        ':due': entry.due,
        ':seq': entry.delivery_seq,
      },
    });
  }

  async restart(id: string, mode: Mode, dueAt: Date): Promise<StoredEvent | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.event(id, mode),
          UpdateExpression:
            'SET #status = :pending, round_attempts = :zero, delivery_seq = delivery_seq + :one, ' +
            'gsi2pk = :gsi2pk, gsi2sk = :gsi2sk',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':zero': 0,
            ':one': 1,
            ...prefixed(outboxKeys(id, dueAt)),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? withoutKeys<StoredEvent>(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}

function prefixed(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value]));
}
