import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { tableIndexes, tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';
import {
  abstractLevelsOfDynalite,
  ensureTable,
  startEmbeddedDynamoDb,
} from '../../lib/local/embedded-dynamodb.ts';
import { LOAD_ALLOWANCE_MS } from '../support/eventually.ts';

/** Counts the resources (iterators) dynalite's level stores hold open. */
function countOpenResources() {
  let open = 0;
  for (const level of abstractLevelsOfDynalite()) {
    const prototype = (level.AbstractLevel as { prototype: Record<string, (resource: unknown) => void> })
      .prototype;
    const attach = prototype.attachResource as (resource: unknown) => void;
    const detach = prototype.detachResource as (resource: unknown) => void;
    prototype.attachResource = function (this: unknown, resource: unknown) {
      open++;
      return attach.call(this, resource);
    };
    prototype.detachResource = function (this: unknown, resource: unknown) {
      open--;
      return detach.call(this, resource);
    };
  }
  return () => open;
}

const dataDir = mkdtempSync(join(tmpdir(), 'embedded-dynamodb-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const openResources = countOpenResources();

describe('the embedded DynamoDB', () => {
  it.each([
    ['on disk', join(dataDir, 'store')],
    ['in memory', undefined],
  ])(
    '%s, closes the store iterator of every Query and Scan once answered (none left open to pin memory)',
    async (_, path) => {
      const store = await startEmbeddedDynamoDb({ dataDir: path });
      await ensureTable(store.endpoint, 'leaks');
      const client = new DynamoDBClient({
        endpoint: store.endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const { partitionKey, sortKey } = tableSchema;
      for (let index = 0; index < 20; index++) {
        await client.send(
          new PutItemCommand({
            TableName: 'leaks',
            Item: { [partitionKey]: { S: `p${index % 4}` }, [sortKey]: { S: `s${index}` } },
          }),
        );
      }
      const before = openResources();

      for (let index = 0; index < 20; index++) {
        await client.send(
          new QueryCommand({
            TableName: 'leaks',
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': partitionKey },
            ExpressionAttributeValues: { ':pk': { S: `p${index % 4}` } },
            ...(index % 2 ? { Limit: 1 } : {}),
          }),
        );
      }
      await client.send(new ScanCommand({ TableName: 'leaks' }));
      await client.send(new ScanCommand({ TableName: 'leaks', Limit: 2 }));

      // An iterator closes once its answer is sent, not before: a busy machine may take longer than poll's 1 s.
      await expect.poll(openResources, { timeout: LOAD_ALLOWANCE_MS }).toBe(before);
      client.destroy();
      await store.stop();
    },
  );

  it('gives a table kept from before the outbox index that index, with its items, holding only what it projects', async () => {
    const store = await startEmbeddedDynamoDb({ dataDir: undefined });
    const client = new DynamoDBClient({
      endpoint: store.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const { partitionKey, sortKey, gsi2 } = tableSchema;
    const keyOf = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
    // The table as earlier versions created it: the outbox was `gsi2`, every attribute projected.
    await client.send(
      new CreateTableCommand({
        TableName: 'kept',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [partitionKey, sortKey, gsi2.partitionKey, gsi2.sortKey].map(keyOf),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi2',
            KeySchema: [
              { AttributeName: gsi2.partitionKey, KeyType: 'HASH' },
              { AttributeName: gsi2.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
    // dynalite marks a new table ACTIVE on a timer: on a busy machine a write can come first (as on AWS, wait).
    await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 1 }, { TableName: 'kept' });
    await client.send(
      new PutItemCommand({
        TableName: 'kept',
        Item: {
          [partitionKey]: { S: 'EVENT#evt_1' },
          [sortKey]: { S: 'MODE#test' },
          [gsi2.partitionKey]: { S: 'OUTBOX#0' },
          [gsi2.sortKey]: { S: '2026-11-25T00:00:00.000Z#evt_1' },
          id: { S: 'evt_1' },
          delivery_seq: { N: '0' },
          data: { S: 'the payload' },
        },
      }),
    );

    await ensureTable(store.endpoint, 'kept');

    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'kept' }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
      tableIndexes.map((index) => index.indexName).sort(),
    );
    const { Items } = await client.send(
      new QueryCommand({
        TableName: 'kept',
        IndexName: gsi2.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': gsi2.partitionKey },
        ExpressionAttributeValues: { ':pk': { S: 'OUTBOX#0' } },
      }),
    );
    expect(Items?.map((item) => Object.keys(item).sort())).toEqual([
      [partitionKey, sortKey, gsi2.partitionKey, gsi2.sortKey, 'delivery_seq', 'id'].sort(),
    ]);
    client.destroy();
    await store.stop();
  });
});
