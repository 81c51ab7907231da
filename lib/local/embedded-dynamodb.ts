import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';

export interface EmbeddedDynamoDb {
  endpoint: string;
  stop(): Promise<void>;
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
