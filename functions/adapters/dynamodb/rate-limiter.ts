import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../../domain/principal.ts';
import type { RateLimiter } from '../../ports/rate-limiter.ts';
import { keys } from './table-schema.ts';

/**
 * Fixed-window counters: one item per (account, mode, window), incremented with a conditional UpdateItem that
 * refuses to pass the limit, so concurrent requests never overshoot. Items expire through the table's TTL
 * (a window is never read again once over, so late deletion costs nothing but storage).
 */
export class DynamoRateLimiter implements RateLimiter {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly limit: number;
  private readonly windowSeconds: number;

  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: { limit: number; windowSeconds: number },
  ) {
    this.client = client;
    this.tableName = tableName;
    this.limit = options.limit;
    this.windowSeconds = options.windowSeconds;
  }

  async hit(principal: Principal, now: Date) {
    const nowSeconds = now.getTime() / 1000;
    const windowStart = Math.floor(nowSeconds / this.windowSeconds) * this.windowSeconds;
    const windowEnd = windowStart + this.windowSeconds;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.rateWindow(principal.account, principal.mode, windowStart),
          UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':limit': this.limit, ':ttl': windowEnd + 60 },
        }),
      );
      return { allowed: true as const };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return { allowed: false as const, retryAfterSeconds: Math.max(1, Math.ceil(windowEnd - nowSeconds)) };
    }
  }
}
