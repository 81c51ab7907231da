import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  addCounts,
  addReportedFees,
  DAY_MS,
  type Granularity,
  NO_OUTCOMES,
  NO_REPORTED_FEES,
  type OutcomeBucket,
} from '../../domain/outcomes.ts';
import { OUTCOME_SHARDS, type OutcomeCounterStore } from '../../ports/outcome-counters.ts';
import { outcomeBucketAdditions, outcomeBucketFromItem } from './outcome-counter-mapper.ts';
import { allItems } from './query.ts';

/**
 * Outcome counters in the table: `pk` `OUTCOMES#<connection>#<shard>`, `sk` `<granularity>#<bucket start>#<segment>`,
 * the five counts and their weighted counts (`outcome-counter-mapper.ts`), and on hour buckets the fees PSPs reported,
 * as numbers added with `ADD`, and a `ttl` a
 * day after the bucket can last be read. One
 * container writes one shard (chosen at random when it starts), so each item takes at most one write per flush
 * interval per container of that shard.
 */
const pk = (connectionId: string, shard: number) => `OUTCOMES#${connectionId}#${shard}`;
const sk = (granularity: Granularity, start: number, segment: string) =>
  `${granularity}#${new Date(start).toISOString()}#${segment}`;

export class DynamoOutcomeCounterStore implements OutcomeCounterStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async add(buckets: readonly OutcomeBucket[], shard: number): Promise<void> {
    await Promise.all(
      buckets.map((bucket) => {
        const additions = outcomeBucketAdditions(bucket);
        return this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: {
              pk: pk(bucket.connection_id, shard),
              sk: sk(bucket.granularity, bucket.start, bucket.segment),
            },
            UpdateExpression: `${additions.expression} SET #ttl = :ttl`,
            ExpressionAttributeNames: { ...additions.names, '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ...additions.values,
              ':ttl': Math.floor((bucket.start + 2 * DAY_MS) / 1000),
            },
          }),
        );
      }),
    );
  }

  async read(connectionId: string, since: { minutes: number; hours: number }): Promise<OutcomeBucket[]> {
    const reads = [];
    for (let shard = 0; shard < OUTCOME_SHARDS; shard++) {
      for (const granularity of ['minutes', 'hours'] as const) {
        reads.push(
          allItems(this.client, {
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: {
              ':pk': pk(connectionId, shard),
              ':from': `${granularity}#${new Date(since[granularity]).toISOString()}`,
              ':to': `${granularity}#~`,
            },
          }),
        );
      }
    }
    const summed = new Map<string, OutcomeBucket>();
    for (const item of (await Promise.all(reads)).flat()) {
      const bucket = outcomeBucketFromItem(connectionId, item);
      const key = `${bucket.granularity}#${bucket.start}#${bucket.segment}`;
      const known = summed.get(key);
      summed.set(key, {
        ...bucket,
        counts: addCounts(known?.counts ?? NO_OUTCOMES, bucket.counts),
        weighted: addCounts(known?.weighted ?? NO_OUTCOMES, bucket.weighted ?? bucket.counts),
        ...(known?.fees || bucket.fees
          ? { fees: addReportedFees(known?.fees ?? NO_REPORTED_FEES, bucket.fees) }
          : {}),
      });
    }
    return [...summed.values()];
  }
}
