import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConcurrentModificationError } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import type { Payment } from '../../domain/payment.ts';
import type { Mode } from '../../domain/principal.ts';
import type { Subscription } from '../../domain/subscription.ts';
import type { CommittedChange, SubscriptionEvent } from '../../domain/subscription-events.ts';
import {
  type CancelLink,
  type CancelLinkStore,
  type SubscriptionFilter,
  type SubscriptionPage,
  type SubscriptionQuery,
  type SubscriptionRepository,
  subscriptionPosition,
} from '../../ports/subscription-repository.ts';
import { decodedItems } from './item-decoder.ts';
import { type MergedRead, mergedEntries } from './merged-partitions.ts';
import { allItems, dueInSweeperIndex, itemsOfIndexEntries, type TableIndexRef } from './query.ts';
import {
  cancelLinkFromItem,
  renewalFromItem,
  renewalToItem,
  subscriptionEventItem,
  subscriptionFromItem,
  subscriptionToItem,
} from './subscription-mapper.ts';
import {
  currentIndexNames,
  type IndexNames,
  keys,
  merchantShards,
  subscriptionKeys,
  tableSchema,
} from './table-schema.ts';

/** A filtered listing reads at most this many rounds of this many entries, then answers with a cursor. */
const FILTERED_ROUND = 100;
const MAX_FILTERED_ROUNDS = 10;

const passes = (subscription: Subscription, filter: SubscriptionFilter): boolean =>
  (filter.status === undefined || subscription.status === filter.status) &&
  (filter.linkId === undefined || subscription.link_id === filter.linkId) &&
  (filter.connectionId === undefined || subscription.mandate.connection_id === filter.connectionId);

const isFiltered = (filter: SubscriptionFilter): boolean =>
  filter.status !== undefined || filter.linkId !== undefined || filter.connectionId !== undefined;

/**
 * Subscriptions in the single table (docs/data-model.md#subscriptions). A change is its events first, then the
 * subscription on condition of the version read, as links are committed (no multi-item transaction, so that the
 * same code runs on DynamoDB and the embedded store): an event whose write lost is an orphan, dropped here and, if
 * that fails, by delivery, which finds no subscription naming it.
 */
export class DynamoSubscriptionRepository implements SubscriptionRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly timelines: TableIndexRef;
  private readonly listingsIndex: string;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.timelines = { client, tableName, indexName: indexes.timelines };
    this.listingsIndex = indexes.listings;
  }

  async create(change: CommittedChange): Promise<boolean> {
    await this.putEvents(change.events);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: subscriptionToItem(change.after),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      await this.dropOrphans(change.events);
      return false;
    }
  }

  async get(id: string, mode: Mode): Promise<Subscription | undefined> {
    if (!isId('sub', id)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: subscriptionKeys.subscription(id, mode),
        ConsistentRead: true,
      }),
    );
    return Item ? subscriptionFromItem(Item) : undefined;
  }

  async commit(change: CommittedChange): Promise<void> {
    const { before, after } = change;
    if (!before) throw new Error(`Subscription ${after.id}: a change without the state it changes.`);
    await this.putEvents(change.events);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: subscriptionToItem(after),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': before.version },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      await this.dropOrphans(change.events);
      throw new ConcurrentModificationError(`Subscription ${after.id} changed while it was being updated.`);
    }
  }

  private async putEvents(events: readonly SubscriptionEvent[]): Promise<void> {
    await Promise.all(
      events.map((event) =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: subscriptionEventItem(event),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      ),
    );
  }

  /** Events whose subscription write lost; one left behind is harmless, as nothing delivers an unnamed event. */
  private async dropOrphans(events: readonly SubscriptionEvent[]): Promise<void> {
    await Promise.all(
      events.map((event) =>
        this.client
          .send(new DeleteCommand({ TableName: this.tableName, Key: keys.event(event.id, event.mode) }))
          .catch(() => undefined),
      ),
    );
  }

  async list(query: SubscriptionQuery): Promise<SubscriptionPage> {
    const filtered = isFiltered(query);
    const found: Subscription[] = [];
    const read = this.listing(query);
    let rounds = 0;
    const batch = () => (filtered ? FILTERED_ROUND : query.limit + 1 - found.length);
    for await (const entries of mergedEntries(this.client, read, batch)) {
      const items = await itemsOfIndexEntries(this.client, this.tableName, entries);
      const subscriptions = decodedItems(items, subscriptionFromItem);
      found.push(...subscriptions.filter((s) => s.account === query.account && passes(s, query)));
      if (found.length > query.limit) {
        const shown = found.slice(0, query.limit);
        return { subscriptions: shown, next: subscriptionPosition(shown.at(-1) as Subscription) };
      }
      if (++rounds === MAX_FILTERED_ROUNDS && entries.length) {
        // The read budget is spent on a sparse filter: continue after the last entry evaluated.
        return { subscriptions: found, next: String(entries.at(-1)?.[read.sortKey]) };
      }
    }
    return { subscriptions: found, next: undefined };
  }

  /** The tenant's listing partitions, merged newest first, between the cursor (or `createdLt`) and `createdGte`. */
  private listing(query: SubscriptionQuery): MergedRead {
    const after = [query.after, query.createdLt].filter((bound) => bound !== undefined).sort()[0];
    return {
      tableName: this.tableName,
      indexName: this.listingsIndex,
      partitionKey: tableSchema.gsi1.partitionKey,
      sortKey: tableSchema.gsi1.sortKey,
      partitions: merchantShards(subscriptionKeys.listing(query.account, query.mode)),
      descending: true,
      after,
      until: query.createdGte,
    };
  }

  async due(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]> {
    const items = await dueInSweeperIndex(this.timelines, subscriptionKeys.dueShard, now, limit, [
      'id',
      'mode',
    ]);
    return items.map((item) => ({ id: String(item.id), mode: item.mode as Mode }));
  }

  async saveRenewal(payment: Payment): Promise<void> {
    const { subscription_id } = payment;
    if (subscription_id === undefined) throw new Error(`Payment ${payment.id} is not a renewal.`);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: renewalToItem({ ...payment, subscription_id }),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async renewalsOf(id: string, mode: Mode): Promise<Payment[]> {
    const { pk, skPrefix } = subscriptionKeys.renewalsOf(id, mode);
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return decodedItems(items, renewalFromItem);
  }
}

/** Seconds a used or expired cancel link is kept before DynamoDB may delete it. */
const CANCEL_LINK_KEPT_S = 30 * 86_400;

/** Buyers' cancel links: one item each, by the SHA-256 of its token, deleted by TTL some time after its expiry. */
export class DynamoCancelLinkStore implements CancelLinkStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async put(link: CancelLink): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...subscriptionKeys.cancelLink(link.token_hash),
          ...link,
          ttl: Math.floor(Date.parse(link.expires_at) / 1000) + CANCEL_LINK_KEPT_S,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(tokenHash: string): Promise<CancelLink | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: subscriptionKeys.cancelLink(tokenHash),
        ConsistentRead: true,
      }),
    );
    return Item ? cancelLinkFromItem(Item) : undefined;
  }

  async use(tokenHash: string, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: subscriptionKeys.cancelLink(tokenHash),
          UpdateExpression: 'SET used_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND used_at = :unused',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':unused': null },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
