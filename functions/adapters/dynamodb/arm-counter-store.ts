import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ArmBucket, addArmCounts, UPLIFT_WINDOWS } from '../../domain/uplift.ts';
import { type ArmCounterStore, OUTCOME_SHARDS } from '../../ports/outcome-counters.ts';
import { armBucketAdditions, armBucketFromItem, armPartition, armSortKey } from './arm-counter-mapper.ts';
import { allItems } from './query.ts';

const DAY_MS = 86_400_000;
/** Kept a day past the longest window, then removed by the table's TTL. */
const KEPT_DAYS = Math.max(...Object.values(UPLIFT_WINDOWS)) + 1;

/**
 * The arms of `optimize` rules in the table (docs/orchestration.md#uplift, docs/data-model.md): one item per
 * (account, mode, shard, day, goal, arm, segment, rule), its counts added with `ADD`. A container writes the shard
 * it drew when it started (the outcome counters' shard), so an item takes at most one write per flush interval
 * per container of that shard.
 */
export class DynamoArmCounterStore implements ArmCounterStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async add(buckets: readonly ArmBucket[], shard: number): Promise<void> {
    await Promise.all(
      buckets.map((bucket) => {
        const additions = armBucketAdditions(bucket);
        return this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: armPartition(bucket.account, bucket.mode, shard), sk: armSortKey(bucket) },
            UpdateExpression: `${additions.expression} SET #ttl = :ttl`,
            ExpressionAttributeNames: { ...additions.names, '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ...additions.values,
              ':ttl': Math.floor((Date.parse(`${bucket.day}T00:00:00.000Z`) + KEPT_DAYS * DAY_MS) / 1000),
            },
          }),
        );
      }),
    );
  }

  async read(account: string, mode: string, firstDay: string): Promise<ArmBucket[]> {
    const reads = Array.from({ length: OUTCOME_SHARDS }, (_, shard) =>
      allItems(this.client, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': armPartition(account, mode, shard), ':from': firstDay },
      }),
    );
    const summed = new Map<string, ArmBucket>();
    for (const item of (await Promise.all(reads)).flat()) {
      const bucket = armBucketFromItem(account, mode, item);
      const known = summed.get(String(item.sk));
      summed.set(
        String(item.sk),
        known ? { ...known, counts: addArmCounts(known.counts, bucket.counts) } : bucket,
      );
    }
    return [...summed.values()];
  }
}
