import {
  type DynamoDBDocumentClient,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { INDEX_SHARDS, tableSchema, withoutKeys } from './table-schema.ts';

/**
 * Every record of one `gsi1` partition, in key order, all pages read. For listings that are small by nature
 * and read whole: an account's API keys, a link's events.
 */
export async function recordsOfGsi1Partition<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
): Promise<T[]> {
  const items = await allItems(client, {
    TableName: tableName,
    IndexName: tableSchema.gsi1.indexName,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': partition },
  });
  return items.map((item) => withoutKeys<T>(item));
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
 * Up to `limit` items of a sharded index (see `INDEX_SHARDS`), shard after shard, each read page by page:
 * `query(shard)` says what to read in one shard.
 */
export async function itemsOfShards(
  client: DynamoDBDocumentClient,
  limit: number,
  query: (shard: number) => QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < INDEX_SHARDS && items.length < limit; shard++) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({ ...query(shard), Limit: limit - items.length, ExclusiveStartKey }),
      );
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && items.length < limit);
  }
  return items;
}

/**
 * Every entry of one of the sweepers' work lists in gsi3 (`partitionOf(shard)`), due or not, that `filter`
 * (a FilterExpression over `values`) keeps, with only `attributes` read: for operators' checks (the PSP CLI),
 * which read the whole list rather than what is due.
 */
export async function allOfSweeperIndex(
  client: DynamoDBDocumentClient,
  tableName: string,
  partitionOf: (shard: number) => string,
  filter: { expression: string; names?: Record<string, string>; values: Record<string, unknown> },
  attributes: readonly string[],
): Promise<Record<string, unknown>[]> {
  const projected = Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name]));
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < INDEX_SHARDS; shard++) {
    items.push(
      ...(await allItems(client, {
        TableName: tableName,
        IndexName: tableSchema.gsi3.indexName,
        KeyConditionExpression: 'gsi3pk = :shard',
        FilterExpression: filter.expression,
        ExpressionAttributeNames: { ...projected, ...filter.names },
        ExpressionAttributeValues: { ':shard': partitionOf(shard), ...filter.values },
        ProjectionExpression: Object.keys(projected).join(', '),
      })),
    );
  }
  return items;
}

/**
 * One of the sweepers' work lists in gsi3 (`partitionOf(shard)`, sort key `<due time>#<id>`): up to `limit`
 * entries due at or before `now`, oldest first within each shard, with only `attributes` read.
 */
export function dueInSweeperIndex(
  client: DynamoDBDocumentClient,
  tableName: string,
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
    IndexName: tableSchema.gsi3.indexName,
    KeyConditionExpression: 'gsi3pk = :shard AND gsi3sk <= :bound',
    ExpressionAttributeValues: { ':shard': partitionOf(shard), ':bound': bound },
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: names,
  }));
}
