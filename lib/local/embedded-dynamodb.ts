import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';

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

/** Creates the service table with the key schema the CDK stack deploys (lib/constructs/links-table.ts). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const { partitionKey, sortKey, gsi1, gsi2, gsi3 } = tableSchema;
  const stringAttributes = [
    partitionKey,
    sortKey,
    gsi1.partitionKey,
    gsi1.sortKey,
    gsi2.partitionKey,
    gsi2.sortKey,
    gsi3.partitionKey,
    gsi3.sortKey,
  ];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: stringAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [gsi1, gsi2, gsi3].map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  client.destroy();
}
