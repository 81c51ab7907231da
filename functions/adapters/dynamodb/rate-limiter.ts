import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BoundedCache } from '../../bounded-cache.ts';
import type { Principal } from '../../domain/principal.ts';
import type { RateLimiter, RateLimitOutcome } from '../../ports/rate-limiter.ts';
import { keys } from './table-schema.ts';

/** Tenants whose leases a container keeps at most. */
export const MAX_TENANT_LEASES = 10_000;

/**
 * Fixed-window counters: one item per (account, mode, window), incremented with a conditional UpdateItem that
 * refuses to pass the limit, so concurrent requests in any number of containers never overshoot. Items expire
 * through the table's TTL (a window is never read again once over).
 *
 * A busy container does not write once per request: it reserves tokens in leases and spends them from memory.
 * The first request of a tenant in a window reserves one token; each lease after that is twice the previous, up
 * to 1% of the limit. A reserved token is counted whether or not it is spent, so the limit is never exceeded;
 * what a container reserved and did not spend before the window ends is lost, which is at most the tokens it
 * spent (doubling) and never more than 1% of the limit per container. Near the limit, where a whole lease no
 * longer fits, tokens are reserved one at a time, so the last ones go to whoever asks.
 *
 * Once a single token no longer fits, the window is spent for good (reserved tokens are never given back), so
 * the container remembers it until the window ends: every further request of that tenant is refused from
 * memory, and a flood of refused requests costs no store write.
 *
 * `remaining` is what the count said at this container's last reservation, less what it spent since, plus the
 * tokens it holds: other containers' spending shows at its next reservation.
 *
 * A container keeps the leases of its `MAX_TENANT_LEASES` most recent tenants; a tenant forgotten loses the
 * tokens it held (counted, never overshooting) and reserves anew.
 */
export class DynamoRateLimiter implements RateLimiter {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly limit: number;
  private readonly windowSeconds: number;
  private readonly maxLease: number;
  /**
   * Per tenant: the window the tokens belong to, tokens left, the size of the last lease, the window's free
   * tokens as of the last reservation, and whether the window is spent.
   */
  private readonly leases = new BoundedCache<
    string,
    { windowStart: number; left: number; size: number; free: number; spent: boolean }
  >(MAX_TENANT_LEASES);

  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    options: { limit: number; windowSeconds: number },
  ) {
    this.client = client;
    this.tableName = tableName;
    this.limit = options.limit;
    this.windowSeconds = options.windowSeconds;
    this.maxLease = Math.max(1, Math.floor(options.limit / 100));
  }

  isSpent(principal: Principal, now: Date): boolean {
    const windowStart = Math.floor(now.getTime() / 1000 / this.windowSeconds) * this.windowSeconds;
    const lease = this.leases.get(`${principal.account}#${principal.mode}`);
    return lease?.windowStart === windowStart && lease.spent;
  }

  async hit(principal: Principal, now: Date): Promise<RateLimitOutcome> {
    const nowSeconds = now.getTime() / 1000;
    const windowStart = Math.floor(nowSeconds / this.windowSeconds) * this.windowSeconds;
    const outcome = (allowed: boolean, remaining: number): RateLimitOutcome => ({
      allowed,
      limit: this.limit,
      remaining,
      resetSeconds: Math.max(1, Math.ceil(windowStart + this.windowSeconds - nowSeconds)),
    });
    const tenant = `${principal.account}#${principal.mode}`;
    let lease = this.leases.get(tenant);
    if (lease?.windowStart !== windowStart) {
      lease = { windowStart, left: 0, size: 0, free: this.limit, spent: false };
      this.leases.set(tenant, lease);
    }
    if (lease.spent) return outcome(false, 0);
    if (lease.left === 0) {
      const wanted = Math.min(this.maxLease, Math.max(1, lease.size * 2));
      const reserved =
        (wanted > 1 && (await this.reserve(principal, windowStart, wanted))) ||
        (await this.reserve(principal, windowStart, 1));
      if (!reserved) {
        lease.spent = true;
        return outcome(false, 0);
      }
      lease.left += reserved.tokens;
      lease.size = reserved.tokens;
      lease.free = this.limit - reserved.count;
    }
    lease.left -= 1;
    return outcome(true, lease.free + lease.left);
  }

  /** Adds `tokens` to the window's count if they fit under the limit; the window's count after, or undefined. */
  private async reserve(
    principal: Principal,
    windowStart: number,
    tokens: number,
  ): Promise<{ tokens: number; count: number } | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.rateWindow(principal.account, principal.mode, windowStart),
          UpdateExpression: 'ADD #count :tokens SET #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':tokens': tokens,
            ':room': this.limit - tokens,
            ':ttl': windowStart + this.windowSeconds + 60,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { tokens, count: Number(Attributes?.count ?? tokens) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}
