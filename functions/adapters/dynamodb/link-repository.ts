import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConcurrentModificationError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import type { LinkEvent, LinkStatus, PaymentLink, Refund, Transition } from '../../domain/payment-link.ts';
import type { Mode } from '../../domain/principal.ts';
import { OUTBOX_GRACE_MS } from '../../domain/webhook.ts';
import {
  type LinkListQuery,
  type LinkPage,
  type LinkRepository,
  linkPosition,
} from '../../ports/link-repository.ts';
import { itemsOfShards } from './query.ts';
import { keys, outboxKeys, shardOf, tableSchema, withoutKeys } from './table-schema.ts';

function linkItem(link: PaymentLink) {
  // Sparse: only open links with an expiry are in gsi3, so every later Put of the link drops it from there.
  const expiry =
    link.status === 'open' && link.expires_at
      ? { gsi3pk: keys.expiryShard(shardOf(link.id)), gsi3sk: `${link.expires_at}#${link.id}` }
      : {};
  return {
    ...keys.link(link.id, link.mode),
    gsi1pk: keys.linksOfAccount(link.account, link.mode),
    gsi1sk: linkPosition(link),
    ...expiry,
    ...link,
  };
}

/** Pages of this many items are read when a filter may discard most of them. */
const FILTERED_PAGE_SIZE = 100;
/** A filtered listing stops after this many reads and returns what it found with a cursor to continue. */
const MAX_READS_PER_LIST = 10;

/** Filters by the status a reader sees at `now` (effectiveStatus): ISO 8601 UTC strings compare as times. */
function statusFilter(status: LinkStatus, now: string) {
  const names = { '#status': 'status' };
  switch (status) {
    case 'open':
      return {
        FilterExpression: '#status = :open AND (attribute_type(expires_at, :null) OR expires_at > :now)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':open': 'open', ':null': 'NULL', ':now': now },
      };
    case 'expired':
      return {
        FilterExpression: '#status = :expired OR (#status = :open AND expires_at <= :now)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':expired': 'expired', ':open': 'open', ':now': now },
      };
    default:
      return {
        FilterExpression: '#status = :status',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':status': status },
      };
  }
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
    attempt_count: 0,
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
    if (!isId('pl', id)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.link(id, mode), ConsistentRead: true }),
    );
    return Item ? withoutKeys<PaymentLink>(Item) : undefined;
  }

  async commit({ before, after, event }: Transition): Promise<void> {
    // No multi-item transaction: the event is written first and only counts once the link names it
    // (see PaymentLink.event_ids), which keeps the same code correct on DynamoDB and the embedded store.
    await this.putEvent(event);
    try {
      await this.update(before, after);
    } catch (error) {
      if (error instanceof ConcurrentModificationError) await this.dropOrphan(event);
      throw error;
    }
  }

  async update(before: PaymentLink, after: PaymentLink): Promise<void> {
    // The whole item, not a SET of the changed fields: a new `expires_at` moves the link in the expiry index.
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
        throw new ConcurrentModificationError(
          `Payment link ${before.id} changed while it was being updated.`,
        );
      }
      throw error;
    }
  }

  private async putEvent(event: LinkEvent): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: eventItem(event),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /** Removes an event whose link write lost; one left behind is harmless, as nothing delivers an unnamed event. */
  private async dropOrphan(event: LinkEvent): Promise<void> {
    await this.client
      .send(new DeleteCommand({ TableName: this.tableName, Key: keys.event(event.id, event.mode) }))
      .catch(() => undefined);
  }

  async commitRefundSettlement({ before, after, event }: Transition, refund: Refund): Promise<boolean> {
    const index = (before.refunds ?? []).findIndex((candidate) => candidate.id === refund.id);
    await this.putEvent(event);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(before.id, before.mode),
          UpdateExpression:
            `SET refunds[${index}] = :refund, event_ids = list_append(event_ids, :event), version = version + :one ` +
            'ADD refund_refunded_minor :refunded, refund_reserved_minor :reserved',
          ConditionExpression: `refunds[${index}].id = :id AND refunds[${index}].#status = :pending`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':refund': refund,
            ':event': [event.id],
            ':one': 1,
            ':refunded': (after.refund_refunded_minor ?? 0) - (before.refund_refunded_minor ?? 0),
            ':reserved': (after.refund_reserved_minor ?? 0) - (before.refund_reserved_minor ?? 0),
            ':id': refund.id,
            ':pending': 'pending',
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        await this.dropOrphan(event);
        return false;
      }
      throw error;
    }
  }

  async reserveRefund(
    link: PaymentLink,
    refund: Refund,
    limits: { paidMinor: bigint; refundMinor: bigint; maxRefunds: number },
  ): Promise<boolean> {
    // Arithmetic cannot appear in a condition, so "reserved + this refund <= paid" is "reserved <= paid - this".
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression:
            'SET refunds = list_append(if_not_exists(refunds, :none), :refund), version = version + :one ' +
            'ADD refund_reserved_minor :amount',
          ConditionExpression:
            '#status = :paid AND (attribute_not_exists(refund_reserved_minor) OR refund_reserved_minor <= :limit) ' +
            'AND (attribute_not_exists(refunds) OR size(refunds) < :max)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':none': [],
            ':refund': [refund],
            ':one': 1,
            ':amount': Number(limits.refundMinor),
            ':paid': 'paid',
            ':limit': Number(limits.paidMinor - limits.refundMinor),
            ':max': limits.maxRefunds,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
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

  async list({ account, mode, limit, after, status, now }: LinkListQuery): Promise<LinkPage> {
    const gsi1pk = keys.linksOfAccount(account, mode);
    const filter = status ? statusFilter(status, now.toISOString()) : undefined;
    const startKey = (position: string) => ({
      gsi1pk,
      gsi1sk: position,
      ...keys.link(position.slice(position.indexOf('#') + 1), mode),
    });
    const found: PaymentLink[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined = after ? startKey(after) : undefined;
    // One more than asked for tells whether another page exists.
    for (let reads = 0; reads < MAX_READS_PER_LIST; reads++) {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: tableSchema.gsi1.indexName,
          KeyConditionExpression: 'gsi1pk = :pk',
          ...filter,
          ExpressionAttributeValues: { ...filter?.ExpressionAttributeValues, ':pk': gsi1pk },
          ScanIndexForward: false,
          Limit: filter ? FILTERED_PAGE_SIZE : limit + 1 - found.length,
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        found.push(withoutKeys<PaymentLink>(item));
        if (found.length > limit) {
          const links = found.slice(0, limit);
          return { links, next: linkPosition(links[links.length - 1] as PaymentLink) };
        }
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
      if (!ExclusiveStartKey) return { links: found, next: undefined };
    }
    // Read budget spent on a sparse filter: continue after the last link evaluated, not the last one found.
    return { links: found, next: String(ExclusiveStartKey?.gsi1sk) };
  }

  async dueForExpiry(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]> {
    // `<expires_at>#<id>` up to and including this instant: '~' sorts after every id character.
    const bound = `${now.toISOString()}#~`;
    const items = await itemsOfShards(this.client, limit, (shard) => ({
      TableName: this.tableName,
      IndexName: tableSchema.gsi3.indexName,
      KeyConditionExpression: 'gsi3pk = :shard AND gsi3sk <= :bound',
      ExpressionAttributeValues: { ':shard': keys.expiryShard(shard), ':bound': bound },
      ProjectionExpression: 'id, #mode',
      ExpressionAttributeNames: { '#mode': 'mode' },
    }));
    return items.map((item) => ({ id: String(item.id), mode: item.mode as Mode }));
  }
}
