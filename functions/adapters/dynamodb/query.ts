import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import { decodedItems } from './item-decoder.ts';
import { INDEX_SHARDS } from './table-schema.ts';

/** BatchGetItem reads at most this many keys per request. */
const BATCH_GET_LIMIT = 100;
/** Rounds of re-asking for keys DynamoDB left unprocessed (throttling) before the reads fail. */
const UNPROCESSED_ROUNDS = 5;

/** An item's primary key. */
export type ItemKey = { pk: string; sk: string };
const primaryKey = (item: Record<string, unknown>): ItemKey => ({ pk: String(item.pk), sk: String(item.sk) });
const keyText = (key: ItemKey) => `${key.pk}\n${key.sk}`;

/**
 * The items of `keys`, strongly consistent, in the order of `keys`; a key with no item is left out. One
 * BatchGetItem per 100 keys, asking again (with a growing pause) for the keys DynamoDB left unprocessed.
 */
export async function itemsByKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly ItemKey[],
): Promise<Record<string, unknown>[]> {
  const unique = [...new Map(keys.map((key) => [keyText(key), { pk: key.pk, sk: key.sk }])).values()];
  const found = new Map<string, Record<string, unknown>>();
  const readChunk = async (chunk: ItemKey[]) => {
    let keysToRead: Record<string, unknown>[] = chunk;
    for (let round = 0; keysToRead.length; round++) {
      if (round === UNPROCESSED_ROUNDS) throw new Error('DynamoDB left item reads unprocessed.');
      if (round) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** round));
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keysToRead, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[tableName] ?? []) found.set(keyText(primaryKey(item)), item);
      keysToRead = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  };
  const chunks: ItemKey[][] = [];
  for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
    chunks.push(unique.slice(start, start + BATCH_GET_LIMIT));
  }
  await Promise.all(chunks.map(readChunk));
  return keys
    .map((key) => found.get(keyText(key)))
    .filter((item): item is Record<string, unknown> => item !== undefined);
}

/**
 * The items a Query of a slim index (the keys and at most a few attributes, as `listings` and `timelines`
 * hold) lists, read from the table by key, in the Query's order: the index answers which, the table what.
 */
export function itemsOfIndexEntries(
  client: DynamoDBDocumentClient,
  tableName: string,
  entries: readonly Record<string, unknown>[],
): Promise<Record<string, unknown>[]> {
  return itemsByKey(client, tableName, entries.map(primaryKey));
}

/** Where an index is: the table, and the name of the index to query. */
export interface TableIndexRef {
  client: DynamoDBDocumentClient;
  tableName: string;
  indexName: string;
}

/**
 * Every record of one partition of the listings index, in key order, all pages read, each read by key (the
 * index holds the keys only) and decoded by `decode` (one that does not decode is left out: `decodedItems`).
 * For listings that are small by nature and read whole: an account's API keys.
 */
export async function recordsOfListing<T>(
  { client, tableName, indexName }: TableIndexRef,
  partition: string,
  decode: (item: Record<string, unknown>) => T,
): Promise<T[]> {
  const entries = await allItems(client, {
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': partition },
  });
  return decodedItems(await itemsOfIndexEntries(client, tableName, entries), decode);
}

/** Every item a query matches, all pages read: for partitions that are small by nature and read whole. */
export async function allItems(
  client: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client }, input)) items.push(...(page.Items ?? []));
  return items;
}

/**
 * Up to `limit` items of a sharded index (see `INDEX_SHARDS`): every shard read in parallel (one page of up to
 * `limit` each), then taken a turn per shard so that a backlog in one shard never starves the others; what is
 * left is the next call's. `query(shard)` says what to read in one shard.
 */
export async function itemsOfShards(
  client: DynamoDBDocumentClient,
  limit: number,
  query: (shard: number) => QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const pages = await Promise.all(
    Array.from({ length: INDEX_SHARDS }, (_, shard) =>
      client.send(new QueryCommand({ ...query(shard), Limit: limit })),
    ),
  );
  const shards = pages.map((page) => page.Items ?? []);
  const items: Record<string, unknown>[] = [];
  for (let turn = 0; items.length < limit && shards.some((shard) => shard.length > turn); turn++) {
    for (const shard of shards) {
      const item = shard[turn];
      if (item && items.length < limit) items.push(item);
    }
  }
  return items;
}

/**
 * Every record on one of the sweepers' work lists in the timelines index (`partitionOf(shard)`), due or not,
 * read whole from the table and decoded by `decode` (`decodedItems`): for operators' checks (the PSP CLI), which
 * read the whole list and filter it themselves.
 */
export async function allOfSweeperIndex<T>(
  { client, tableName, indexName }: TableIndexRef,
  partitionOf: (shard: number) => string,
  decode: (item: Record<string, unknown>) => T,
): Promise<T[]> {
  const shards = await Promise.all(
    Array.from({ length: INDEX_SHARDS }, (_, shard) =>
      allItems(client, {
        TableName: tableName,
        IndexName: indexName,
        KeyConditionExpression: 'gsi3pk = :shard',
        ExpressionAttributeValues: { ':shard': partitionOf(shard) },
        ProjectionExpression: 'pk, sk',
      }),
    ),
  );
  return decodedItems(await itemsOfIndexEntries(client, tableName, shards.flat()), decode);
}

/**
 * One of the sweepers' work lists in the timelines index (`partitionOf(shard)`, sort key `<due time>#<id>`):
 * up to `limit` entries due at or before `now`, oldest first within each shard, with only `attributes` read
 * (of what the index projects, `tableSchema.gsi3.projection`).
 */
export function dueInSweeperIndex(
  { client, tableName, indexName }: TableIndexRef,
  partitionOf: (shard: number) => string,
  now: Date,
  limit: number,
  attributes: readonly string[],
): Promise<Record<string, unknown>[]> {
  // Up to and including this instant: '~' sorts after every id character.
  const bound = `${now.toISOString()}#~`;
  const names = Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name]));
  return itemsOfShards(client, limit, (shard) => ({
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: 'gsi3pk = :shard AND gsi3sk <= :bound',
    ExpressionAttributeValues: { ':shard': partitionOf(shard), ':bound': bound },
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: names,
  }));
}

/** A payment a sweeper's list names as due: where it is stored (`LINK#<link_id>`, its mode) and its id. */
export interface DuePayment {
  link_id: string;
  mode: Mode;
  id: string;
}

/** The payments due in a sweeper's list of payments (pending checks, retention). */
export async function duePayments(
  timelines: TableIndexRef,
  partitionOf: (shard: number) => string,
  now: Date,
  limit: number,
): Promise<DuePayment[]> {
  const due = await dueInSweeperIndex(timelines, partitionOf, now, limit, ['id', 'link_id', 'mode']);
  return due.map((item) => ({ id: String(item.id), link_id: String(item.link_id), mode: item.mode as Mode }));
}
