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
import {
  ATTEMPTS_KEPT,
  attemptCount,
  type DeliveryAttempt,
  type DeliveryDecision,
  keptAttempts,
  type StoredEvent,
} from '../../domain/webhook.ts';
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

/**
 * Writes of one attempt before giving up: each retry follows a concurrent write to the same event, and a
 * handful of attempts of one event at the same moment is already more than duplicates produce.
 */
const LOG_WRITE_ROUNDS = 5;

/** The event in an item, with its outbox due time (the part of `gsi2sk` before the id) while it has one. */
function toStoredEvent(item: Record<string, unknown>): StoredEvent {
  const event = withoutKeys<StoredEvent>(item);
  return typeof item.gsi2sk === 'string' ? { ...event, outbox_due: item.gsi2sk.split('#')[0] } : event;
}

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
    return Item ? toStoredEvent(Item) : undefined;
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
      for (const item of Responses?.[this.tableName] ?? []) events.push(toStoredEvent(item));
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
    let seen: StoredEvent = event;
    for (let round = 0; round < LOG_WRITE_ROUNDS; round++) {
      const owned = seen.status === 'pending' && seen.delivery_seq === event.delivery_seq;
      if (await this.recordAttempt(seen, attempt, owned ? { decision, dueAt } : undefined)) return owned;
      // Either the state moved on (another attempt for the same message finished first, or a redelivery
      // began: this attempt is then only logged, the state being someone else's decision), or another
      // attempt was logged since `seen` was read, which a trimmed log must not overwrite.
      const current = await this.get(event.id, event.mode);
      if (!current) return false;
      seen = current;
    }
    throw new Error(`Event ${event.id}: the attempt could not be recorded (the log kept changing).`);
  }

  /**
   * One conditional write appending `attempt` to the log `seen` holds (and the decision, when given, on the
   * condition the event is still pending at that sequence). While the log has room this is an atomic append;
   * a full log is replaced by its latest attempts on the condition that its count is the one read, so an
   * attempt logged meanwhile is never dropped. False when a condition failed.
   */
  private recordAttempt(
    seen: StoredEvent,
    attempt: DeliveryAttempt,
    owned: { decision: DeliveryDecision; dueAt: Date } | undefined,
  ): Promise<boolean> {
    const values: Record<string, unknown> = { ':one': 1, ':counted': attemptCount(seen) };
    const conditions = ['attribute_exists(pk)'];
    const set = ['attempt_count = if_not_exists(attempt_count, :counted) + :one'];
    let remove = '';
    if (seen.attempts.length < ATTEMPTS_KEPT) {
      set.push('attempts = list_append(attempts, :attempt)');
      values[':attempt'] = [attempt];
    } else {
      set.push('attempts = :attempts');
      values[':attempts'] = keptAttempts(seen.attempts, attempt);
      // The count moves with every logged attempt, so it tells whether the log is still the one read.
      conditions.push(
        seen.attempt_count === undefined ? 'attribute_not_exists(attempt_count)' : 'attempt_count = :counted',
      );
    }
    if (owned) {
      conditions.push('#status = :pending', 'delivery_seq = :seq');
      set.push('#status = :status', 'delivery_seq = :next');
      Object.assign(values, {
        ':pending': 'pending',
        ':seq': seen.delivery_seq,
        ':next': seen.delivery_seq + 1,
        ':status': owned.decision.status,
      });
      if (owned.decision.status === 'pending') {
        set.push('round_attempts = round_attempts + :one', 'gsi2pk = :gsi2pk', 'gsi2sk = :gsi2sk');
        Object.assign(values, prefixed(outboxKeys(seen.id, owned.dueAt)));
      } else {
        remove = ' REMOVE gsi2pk, gsi2sk';
      }
    }
    return conditionally(this.client, {
      TableName: this.tableName,
      Key: keys.event(seen.id, seen.mode),
      UpdateExpression: `SET ${set.join(', ')}${remove}`,
      ConditionExpression: conditions.join(' AND '),
      ...(owned ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ExpressionAttributeValues: values,
    });
  }

  defer(event: StoredEvent, dueAt: Date): Promise<boolean> {
    return conditionally(this.client, {
      TableName: this.tableName,
      Key: keys.event(event.id, event.mode),
      UpdateExpression: 'SET delivery_seq = :next, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk',
      ConditionExpression: '#status = :pending AND delivery_seq = :seq',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':seq': event.delivery_seq,
        ':next': event.delivery_seq + 1,
        ...prefixed(outboxKeys(event.id, dueAt)),
      },
    });
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
      ProjectionExpression: '#id, #account, #mode, delivery_seq, gsi2sk',
      ExpressionAttributeNames: { '#id': 'id', '#account': 'account', '#mode': 'mode' },
    }));
    return items.map((item) => ({
      id: item.id as string,
      account: item.account as string,
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
      return Attributes ? toStoredEvent(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}

function prefixed(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value]));
}
