import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import { isEventId } from '../../domain/random.ts';
import type { DeliveryAttempt, DeliveryDecision, StoredEvent } from '../../domain/webhook.ts';
import type { EventRepository, OutboxEntry } from '../../ports/event-repository.ts';
import { keys, OUTBOX_SHARDS, outboxKeys, tableSchema, withoutKeys } from './table-schema.ts';

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

interface PendingRead {
  id: string;
  mode: Mode;
  waiting: { resolve: (event: StoredEvent | undefined) => void; reject: (error: unknown) => void }[];
}

export class DynamoEventRepository implements EventRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  /** Reads asked for since the last flush, by key; one BatchGetItem serves them all. */
  private pendingReads: Map<string, PendingRead> | undefined;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  /**
   * Strongly consistent. Reads asked for in the same turn of the event loop (the records of one SQS batch, the
   * events of one delivery log) are coalesced into one BatchGetItem: a tenth of the requests a GetItem each
   * would cost, and the same answers.
   */
  get(id: string, mode: Mode): Promise<StoredEvent | undefined> {
    if (!isEventId(id)) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      if (!this.pendingReads) {
        this.pendingReads = new Map();
        setImmediate(() => this.flushReads());
      }
      const key = `${mode}#${id}`;
      const read = this.pendingReads.get(key) ?? { id, mode, waiting: [] };
      read.waiting.push({ resolve, reject });
      this.pendingReads.set(key, read);
    });
  }

  private flushReads(): void {
    const reads = [...(this.pendingReads?.values() ?? [])];
    this.pendingReads = undefined;
    for (let start = 0; start < reads.length; start += BATCH_GET_LIMIT) {
      const chunk = reads.slice(start, start + BATCH_GET_LIMIT);
      this.readChunk(chunk).then(
        (found) => {
          for (const read of chunk) {
            const event = found.get(`${read.mode}#${read.id}`);
            for (const waiting of read.waiting) waiting.resolve(event);
          }
        },
        (error: unknown) => {
          for (const read of chunk) for (const waiting of read.waiting) waiting.reject(error);
        },
      );
    }
  }

  private async readChunk(reads: PendingRead[]): Promise<Map<string, StoredEvent>> {
    const found = new Map<string, StoredEvent>();
    let keysToRead: Record<string, unknown>[] = reads.map((read) => keys.event(read.id, read.mode));
    for (let round = 0; keysToRead.length; round++) {
      if (round === UNPROCESSED_ROUNDS) throw new Error('DynamoDB left event reads unprocessed.');
      if (round) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
      const { Responses, UnprocessedKeys } = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: keysToRead, ConsistentRead: true } },
        }),
      );
      for (const item of Responses?.[this.tableName] ?? []) {
        const event = withoutKeys<StoredEvent>(item);
        found.set(`${event.mode}#${event.id}`, event);
      }
      keysToRead = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    return found;
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
    const entries: OutboxEntry[] = [];
    for (let shard = 0; shard < OUTBOX_SHARDS && entries.length < limit; shard++) {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: tableSchema.gsi2.indexName,
            // `~` sorts after every character of an id, so entries due exactly now are included.
            KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
            ExpressionAttributeValues: { ':pk': keys.outbox(shard), ':now': `${now.toISOString()}~` },
            ProjectionExpression: '#id, #mode, delivery_seq, gsi2sk',
            ExpressionAttributeNames: { '#id': 'id', '#mode': 'mode' },
            Limit: limit - entries.length,
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          entries.push({
            id: item.id as string,
            mode: item.mode as Mode,
            delivery_seq: item.delivery_seq as number,
            due: item.gsi2sk as string,
          });
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey && entries.length < limit);
    }
    return entries;
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
