import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ScanCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { tableIndexes, tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';

export interface EmbeddedDynamoDb {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * dynalite reads a Query or Scan through a stream over a level iterator and, when the stream ends, closes the
 * iterator by calling its `return()`, the async-iterator method. abstract-level 3's iterators have `close()` and
 * no `return()`, so no iterator was ever closed: the database keeps each one among its open resources until it
 * closes, and on disk each pins a LevelDB iterator in native memory. Every Query leaked one (about 10 KB of RSS
 * per stored link under create and checkout, docs/performance.md#memory-of-the-local-stack). Giving the
 * iterators the `return()` dynalite expects closes them; resolved through dynalite's own dependencies, so it is
 * the copy dynalite uses, and left alone should abstract-level ever define it.
 */
function closeIteratorsDynaliteLeaves(): void {
  for (const level of abstractLevelsOfDynalite()) {
    for (const name of ['AbstractIterator', 'AbstractKeyIterator', 'AbstractValueIterator']) {
      const prototype = (level[name] as { prototype?: object } | undefined)?.prototype;
      if (!prototype || 'return' in prototype) continue;
      Object.defineProperty(prototype, 'return', {
        configurable: true,
        writable: true,
        async value(this: { close(): Promise<void> }) {
          await this.close();
          return { done: true, value: undefined };
        },
      });
    }
  }
}

/** The abstract-level modules under dynalite's two stores: classic-level (on disk) and memory-level. */
export function abstractLevelsOfDynalite(): Record<string, unknown>[] {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const onDisk = createRequire(createRequire(fromDynalite.resolve('level')).resolve('classic-level'));
  const inMemory = createRequire(fromDynalite.resolve('memory-level'));
  return [...new Set([onDisk('abstract-level'), inMemory('abstract-level')])];
}

/**
 * A DynamoDB-compatible server (dynalite) on loopback, persisted under `dataDir` (in memory when omitted).
 * It speaks the real wire protocol, so the handlers use the real AWS SDK against it.
 */
export async function startEmbeddedDynamoDb(options: {
  dataDir?: string;
  port?: number;
}): Promise<EmbeddedDynamoDb> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  closeIteratorsDynaliteLeaves();
  const server = dynalite({ path: options.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An index as CreateTable and UpdateTable take it. */
const indexInput = (index: (typeof tableIndexes)[number]) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection:
    index.projection.type === 'INCLUDE'
      ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projection.attributes] }
      : { ProjectionType: index.projection.type },
});

/**
 * Creates the service table with the key schema and indexes the CDK stack deploys (lib/constructs/links-table.ts).
 * A table kept from an earlier run (`.data/`) that lacks one of them is created again with its items (a deployed
 * table gets it through its migration, docs/operations.md#index-migrations).
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const { partitionKey, sortKey } = tableSchema;
  const stringAttributes = [
    ...new Set([
      partitionKey,
      sortKey,
      ...tableIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ]),
  ];
  const AttributeDefinitions = stringAttributes.map((name) => ({
    AttributeName: name,
    AttributeType: 'S' as const,
  }));
  try {
    const present = await indexesOf(client, tableName);
    if (present && tableIndexes.every((index) => present.includes(index.indexName))) return;
    // dynalite cannot add an index to a table (UpdateTable ignores index creation): a table kept from before an
    // index existed is created again with its items, as a deployed table gets it through its migration.
    const kept = present ? await allItemsOf(client, tableName) : [];
    if (present) {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      // dynalite answers DeleteTable while the table is still DELETING, and refuses to create it again
      // (ResourceInUseException) until it is gone: wait, as on AWS.
      await waitUntilTableNotExists(
        { client, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
        { TableName: tableName },
      );
    }
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions,
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: tableIndexes.map(indexInput),
      }),
    );
    // dynalite answers CreateTable while the table is still CREATING, and refuses every item request until a
    // timer marks it ACTIVE (after the write of its description, on disk a moment later): wait, as on AWS.
    await waitUntilTableExists(
      { client, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
      { TableName: tableName },
    );
    for (let start = 0; start < kept.length; start += 25) {
      let batch = kept.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      while (batch.length) {
        const { UnprocessedItems } = await client.send(
          new BatchWriteItemCommand({ RequestItems: { [tableName]: batch } }),
        );
        batch = (UnprocessedItems?.[tableName] ?? []) as typeof batch;
      }
    }
  } finally {
    client.destroy();
  }
}

/** Every item of a table, in the store's wire format. */
async function allItemsOf(
  client: DynamoDBClient,
  tableName: string,
): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** The names of a table's secondary indexes, or undefined when there is no such table. */
async function indexesOf(client: DynamoDBClient, tableName: string): Promise<string[] | undefined> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName as string);
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}
