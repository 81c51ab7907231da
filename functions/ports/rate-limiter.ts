import type { Principal } from '../domain/principal.ts';

/** Counts requests per (account, mode). */
export interface RateLimiter {
  /** Counts one request at `now`; when over the limit, says how long until it may be retried. */
  hit(
    principal: Principal,
    now: Date,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
}
