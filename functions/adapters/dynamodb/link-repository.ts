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
import type { LinkEvent, Transition } from '../../domain/link-events.ts';
import { isFiltered, type LinkPlace, matchesFilter, type PaymentLink } from '../../domain/payment-link.ts';
import type { Mode } from '../../domain/principal.ts';
import { linkTokens } from '../../domain/search.ts';
import { OUTBOX_GRACE_MS } from '../../domain/webhook.ts';
import {
  type LinkListQuery,
  type LinkPage,
  type LinkRepository,
  linkPosition,
} from '../../ports/link-repository.ts';
import { storedEventData } from './event-data.ts';
import { decodedItems } from './item-decoder.ts';
import { linkFromItem, linkToItem, placeAttribute } from './link-mapper.ts';
import { type MergedRead, mergedEntries } from './merged-partitions.ts';
import { dueInSweeperIndex, itemsByKey, itemsOfIndexEntries, type TableIndexRef } from './query.ts';
import { type Searchable, tokenChanges, writeSearchKeys } from './search-keys.ts';
import {
  currentIndexNames,
  eventFeedKeys,
  type IndexNames,
  keys,
  merchantPartitions,
  outboxKeys,
  tableSchema,
} from './table-schema.ts';

/** Pages of this many items are read when a filter may discard most of them. */
const FILTERED_PAGE_SIZE = 100;
/** A filtered listing stops after this many reads and returns what it found with a cursor to continue. */
const MAX_READS_PER_LIST = 10;

/**
 * The stored event: `status` and `attempts` are the delivery log that webhook delivery appends to. It enters
 * the outbox (gsi2) at once, due a grace period after its creation: if the queue send after the commit never
 * happens, the outbox sweeper queues it then (docs/webhooks.md, "Design").
 */
/** What a link's search keys name (docs/data-model.md#search). */
const searchableLink = (link: PaymentLink): Searchable => ({ type: 'link', link_id: link.id, ...link });

export function eventItem(event: LinkEvent) {
  return {
    ...keys.event(event.id, event.mode),
    // Not in gsi1: a link's events are read by the ids it names (`event_ids`), the account's in the feed
    // (timelines), and a copy there cost 2 write units when written and 2 more when the attempt is recorded
    // (docs/performance.md#cost-per-million-payment-links-on-aws).
    ...eventFeedKeys(event),
    ...outboxKeys(event.id, new Date(Date.parse(event.created_at) + OUTBOX_GRACE_MS)),
    ...event,
    data: storedEventData(event.data),
    status: 'pending',
    attempts: [],
    attempt_count: 0,
    delivery_seq: 0,
    round_attempts: 0,
  };
}

/** Writes a transition's event: first, so that the link write naming it (`event_ids`) is what makes it count. */
export async function putEvent(client: DynamoDBDocumentClient, tableName: string, event: LinkEvent) {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: eventItem(event),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Removes an event whose link write lost; one left behind is harmless, as nothing delivers an unnamed event. */
export async function dropOrphan(client: DynamoDBDocumentClient, tableName: string, event: LinkEvent) {
  await client
    .send(new DeleteCommand({ TableName: tableName, Key: keys.event(event.id, event.mode) }))
    .catch(() => undefined);
}

export class DynamoLinkRepository implements LinkRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  /** The sweeper's work list, in the timelines index (or its predecessor while it fills). */
  private readonly timelines: TableIndexRef;
  private readonly listingsIndex: string;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.timelines = { client, tableName, indexName: indexes.timelines };
    this.listingsIndex = indexes.listings;
  }

  async create(link: PaymentLink): Promise<PaymentLink | undefined> {
    await writeSearchKeys(this.client, this.tableName, searchableLink(link), { added: linkTokens(link) });
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: linkToItem(link),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Read rather than `ReturnValuesOnConditionCheckFailure`, which the embedded store does not answer; only
      // a retry comes here, and links are never deleted, so the link is there.
      const held = await this.get(link.id, link.mode);
      if (!held) throw new Error(`Payment link ${link.id} was neither stored nor found.`);
      return held;
    }
  }

  async get(id: string, mode: Mode): Promise<PaymentLink | undefined> {
    if (!isId('pl', id)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.link(id, mode), ConsistentRead: true }),
    );
    return Item ? linkFromItem(Item) : undefined;
  }

  async getMany(ids: readonly string[], mode: Mode): Promise<PaymentLink[]> {
    const keyed = ids.filter((id) => isId('pl', id)).map((id) => keys.link(id, mode));
    return (await itemsByKey(this.client, this.tableName, keyed)).map(linkFromItem);
  }

  async commit({ before, after, event }: Transition): Promise<void> {
    // No multi-item transaction: the event is written first and only counts once the link names it
    // (see PaymentLink.event_ids), which keeps the same code correct on DynamoDB and the embedded store.
    await putEvent(this.client, this.tableName, event);
    try {
      await this.update(before, after);
    } catch (error) {
      if (error instanceof ConcurrentModificationError) await dropOrphan(this.client, this.tableName, event);
      throw error;
    }
  }

  async update(before: PaymentLink, after: PaymentLink): Promise<void> {
    // The whole item, not a SET of the changed fields: a new `expires_at` moves the link in the expiry index.
    const changes = tokenChanges(linkTokens(before), linkTokens(after));
    await writeSearchKeys(this.client, this.tableName, searchableLink(after), changes);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: linkToItem(after),
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

  async noteSession(link: PaymentLink): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression: 'SET version = version + :one',
          ConditionExpression: '#status = :open',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':one': 1, ':open': 'open' },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentModificationError(`Payment link ${link.id} is no longer open.`);
      }
      throw error;
    }
  }

  async holdPlace(
    link: PaymentLink,
    slot: number,
    read: LinkPlace | null,
    place: LinkPlace,
  ): Promise<boolean> {
    // The place as read: absent, or the same holder and end (a place whose payment succeeded meanwhile is the
    // same holder with `until` null, and is not taken).
    const asRead = read
      ? '#place.#holder = :readHolder AND #place.#until = :readUntil'
      : 'attribute_not_exists(#place)';
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression: 'SET #place = :place, version = version + :one',
          ConditionExpression: `#status = :open AND ${asRead}`,
          ExpressionAttributeNames: {
            '#status': 'status',
            '#place': placeAttribute(slot),
            ...(read ? { '#holder': 'holder', '#until': 'until' } : {}),
          },
          ExpressionAttributeValues: {
            ':place': place,
            ':one': 1,
            ':open': 'open',
            ...(read ? { ':readHolder': read.holder, ':readUntil': read.until } : {}),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async keepPlace(link: PaymentLink, slot: number, holder: string, place: LinkPlace): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression: 'SET #place = :place, version = version + :one',
          ConditionExpression: '#status = :open AND #place.#holder = :holder',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#place': placeAttribute(slot),
            '#holder': 'holder',
          },
          ExpressionAttributeValues: { ':place': place, ':one': 1, ':open': 'open', ':holder': holder },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentModificationError(
          `Payment link ${link.id} is no longer open, or its place was taken.`,
        );
      }
      throw error;
    }
  }

  async releasePlace(link: PaymentLink, slot: number, holder: string): Promise<void> {
    // The version stays: a whole-link write read before that puts the place back only keeps it until it lapses.
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression: 'REMOVE #place',
          ConditionExpression: '#place.#holder = :holder',
          ExpressionAttributeNames: { '#place': placeAttribute(slot), '#holder': 'holder' },
          ExpressionAttributeValues: { ':holder': holder },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
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

  async list({ account, mode, limit, after, now, ...filter }: LinkListQuery): Promise<LinkPage> {
    const found: PaymentLink[] = [];
    // One more than asked for tells whether another page exists. A filter keeps the links as responses show them
    // (`matchesFilter`), among the ones read: no index knows a status as read or a metadata value.
    const filtered = isFiltered(filter);
    const batch = () => (filtered ? FILTERED_PAGE_SIZE : limit + 1 - found.length);
    const rounds = mergedEntries(this.client, this.listing(account, mode, after), batch);
    let reads = 0;
    let lastRead: string | undefined;
    for await (const entries of rounds) {
      const links = decodedItems(
        await itemsOfIndexEntries(this.client, this.tableName, entries),
        linkFromItem,
      );
      found.push(...links.filter((link) => matchesFilter(link, filter, now)));
      if (found.length > limit) {
        const shown = found.slice(0, limit);
        return { links: shown, next: linkPosition(shown[shown.length - 1] as PaymentLink) };
      }
      lastRead = entries.length ? String(entries.at(-1)?.gsi1sk) : undefined;
      if (++reads === MAX_READS_PER_LIST) {
        // Read budget spent on a sparse filter: continue after the last link evaluated, not the last one found.
        return { links: found, next: lastRead };
      }
    }
    return { links: found, next: undefined };
  }

  /**
   * The account's links, newest first, after `after`: the listing's partitions merged (one merchant's links are
   * spread over several, `merchantPartitions`); the index lists which links (keys only), read then by key.
   */
  private listing(account: string, mode: Mode, after: string | undefined): MergedRead {
    return {
      tableName: this.tableName,
      indexName: this.listingsIndex,
      partitionKey: tableSchema.gsi1.partitionKey,
      sortKey: tableSchema.gsi1.sortKey,
      partitions: merchantPartitions(keys.linksOfAccount(account, mode), keys.linkListing(account, mode)),
      descending: true,
      after,
    };
  }

  async dueForExpiry(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]> {
    const items = await dueInSweeperIndex(this.timelines, keys.expiryShard, now, limit, ['id', 'mode']);
    return items.map((item) => ({ id: String(item.id), mode: item.mode as Mode }));
  }
}
