import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
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
  type EndpointEvent,
  keptAttempts,
  type StoredEvent,
  type WebhookEvent,
} from '../../domain/webhook.ts';
import type { EventKey, EventRepository, FeedQuery, OutboxEntry } from '../../ports/event-repository.ts';
import { storedEventData } from './event-data.ts';
import { eventFeed, eventFeedSince } from './event-feed.ts';
import { eventFromItem } from './event-mapper.ts';
import { decodedItems } from './item-decoder.ts';
import { allItems, itemsByKey, itemsOfShards, type TableIndexRef } from './query.ts';
import {
  currentIndexNames,
  endpointKeys,
  eventFeedKeys,
  type IndexNames,
  keys,
  OUTBOX_ATTRIBUTES,
  outboxKeys,
  tableSchema,
} from './table-schema.ts';

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

/**
 * Writes of one attempt before giving up: each retry follows a concurrent write to the same event, and a
 * handful of attempts of one event at the same moment is already more than duplicates produce.
 */
const LOG_WRITE_ROUNDS = 5;

const keyOf = (ref: EventKey) => `${ref.mode}#${ref.id}#${ref.endpoint_id ?? ''}`;

/** The item of an event (its own delivery state) or of one of its deliveries to a webhook endpoint. */
const itemKey = (ref: EventKey) =>
  ref.endpoint_id ? keys.eventDelivery(ref.id, ref.mode, ref.endpoint_id) : keys.event(ref.id, ref.mode);

/**
 * The event's own fields as stored, which each of its deliveries copies (so delivery reads one item, whichever
 * it is).
 */
function eventFields(event: WebhookEvent) {
  const { id, type, link_id, account, mode, created_at, data } = event;
  return {
    id,
    type,
    ...(link_id !== undefined && { link_id }),
    account,
    mode,
    created_at,
    data: storedEventData(data),
  };
}

/** A new delivery state, in the outbox, due at `dueAt`. */
const freshDelivery = (id: string, dueAt: Date) => ({
  ...outboxKeys(id, dueAt),
  status: 'pending',
  attempts: [],
  attempt_count: 0,
  delivery_seq: 0,
  round_attempts: 0,
});

export class DynamoEventRepository implements EventRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  /** The timelines index, which lists an account's events (the feed). */
  private readonly timelines: TableIndexRef;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.timelines = { client, tableName, indexName: indexes.timelines };
  }

  async get(id: string, mode: Mode, endpointId?: string): Promise<StoredEvent | undefined> {
    if (!isId('evt', id) || (endpointId !== undefined && !isId('we', endpointId))) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: itemKey({ id, mode, endpoint_id: endpointId }),
        ConsistentRead: true,
      }),
    );
    return Item ? eventFromItem(Item) : undefined;
  }

  async getMany(refs: readonly EventKey[]): Promise<(StoredEvent | undefined)[]> {
    const items = await itemsByKey(
      this.client,
      this.tableName,
      refs.filter((ref) => isId('evt', ref.id)).map(itemKey),
    );
    const found = new Map(decodedItems(items, eventFromItem).map((event) => [keyOf(event), event]));
    return refs.map((ref) => found.get(keyOf(ref)));
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
      const current = await this.get(event.id, event.mode, event.endpoint_id);
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
    // An attempt on the event itself follows its fan-out to webhook endpoints: note it in the same write.
    if (!seen.endpoint_id) {
      set.push('fanned_out = :true');
      values[':true'] = true;
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
      Key: itemKey(seen),
      UpdateExpression: `SET ${set.join(', ')}${remove}`,
      ConditionExpression: conditions.join(' AND '),
      ...(owned ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
      ExpressionAttributeValues: values,
    });
  }

  defer(event: StoredEvent, dueAt: Date): Promise<boolean> {
    return conditionally(this.client, {
      TableName: this.tableName,
      Key: itemKey(event),
      // A deferral of the event itself follows its fan-out too (see `recordAttempt`).
      UpdateExpression: `SET delivery_seq = :next, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk${event.endpoint_id ? '' : ', fanned_out = :true'}`,
      ConditionExpression: '#status = :pending AND delivery_seq = :seq',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':seq': event.delivery_seq,
        ':next': event.delivery_seq + 1,
        ...(!event.endpoint_id && { ':true': true }),
        ...prefixed(outboxKeys(event.id, dueAt)),
      },
    });
  }

  async dropFromOutbox(event: StoredEvent): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: itemKey(event),
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
      // What the outbox index projects, and nothing else (it holds nothing else).
      ProjectionExpression: [...OUTBOX_ATTRIBUTES.map((name) => `#${name}`), 'gsi2sk'].join(', '),
      ExpressionAttributeNames: Object.fromEntries(OUTBOX_ATTRIBUTES.map((name) => [`#${name}`, name])),
    }));
    return items.map((item) => ({
      id: item.id as string,
      account: item.account as string,
      mode: item.mode as Mode,
      delivery_seq: item.delivery_seq as number,
      ...(typeof item.endpoint_id === 'string' && { endpoint_id: item.endpoint_id }),
      ...(item.kind === 'recovery' && { recovery: true as const }),
      due: item.gsi2sk as string,
    }));
  }

  postpone(entry: OutboxEntry, dueAt: Date): Promise<boolean> {
    return conditionally(this.client, {
      TableName: this.tableName,
      // A recovery in the outbox is kept beside its endpoint
      // (functions/adapters/dynamodb/endpoint-recovery-store.ts).
      Key: entry.recovery ? endpointKeys.recovery(entry.account, entry.mode, entry.id) : itemKey(entry),
      UpdateExpression: 'SET gsi2sk = :gsi2sk',
      ConditionExpression: 'gsi2sk = :due AND delivery_seq = :seq',
      ExpressionAttributeValues: {
        ':gsi2sk': outboxKeys(entry.id, dueAt).gsi2sk,
        ':due': entry.due,
        ':seq': entry.delivery_seq,
      },
    });
  }

  async restart(id: string, mode: Mode, dueAt: Date, endpointId?: string): Promise<StoredEvent | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: itemKey({ id, mode, endpoint_id: endpointId }),
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
      return Attributes ? eventFromItem(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async addDeliveries(event: WebhookEvent, endpointIds: readonly string[], dueAt: Date): Promise<string[]> {
    const created = await Promise.all(
      endpointIds.map(async (endpointId) => {
        try {
          await this.client.send(
            new PutCommand({
              TableName: this.tableName,
              Item: {
                ...keys.eventDelivery(event.id, event.mode, endpointId),
                ...eventFields(event),
                endpoint_id: endpointId,
                ...freshDelivery(event.id, dueAt),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
          return endpointId;
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) return undefined;
          throw error;
        }
      }),
    );
    return created.filter((id) => id !== undefined);
  }

  async withDeliveries(
    id: string,
    mode: Mode,
  ): Promise<{ event: StoredEvent; deliveries: StoredEvent[] } | undefined> {
    if (!isId('evt', id)) return undefined;
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :mode)',
      ExpressionAttributeValues: { ':pk': keys.event(id, mode).pk, ':mode': keys.event(id, mode).sk },
      ConsistentRead: true,
    });
    const own = items.find((item) => item.sk === keys.event(id, mode).sk);
    if (!own) return undefined;
    return {
      event: eventFromItem(own),
      deliveries: decodedItems(
        items.filter((item) => item !== own && item.endpoint_id),
        eventFromItem,
      ),
    };
  }

  feed(
    account: string,
    mode: Mode,
    query: FeedQuery,
  ): Promise<{ events: StoredEvent[]; next: string | undefined }> {
    return eventFeed(this.timelines, account, mode, query);
  }

  feedSince(
    account: string,
    mode: Mode,
    from: string,
    after: string | undefined,
    limit: number,
  ): Promise<{ events: StoredEvent[]; next: string | undefined }> {
    return eventFeedSince(this.timelines, account, mode, { from, after, limit });
  }

  async recordEndpointEvent(
    event: EndpointEvent,
    endpointIds: readonly string[],
    dueAt: Date,
  ): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.event(event.id, event.mode),
          ...eventFeedKeys(event),
          ...event,
          data: storedEventData(event.data),
          // Nothing to send to a link: its own state is final; its deliveries carry the webhooks.
          status: 'delivered',
          attempts: [],
          attempt_count: 0,
          delivery_seq: 0,
          round_attempts: 0,
          fanned_out: true,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await this.addDeliveries(event, endpointIds, dueAt);
  }
}

function prefixed(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value]));
}
