import type { Principal } from '../domain/principal.ts';

/** Counts requests per (account, mode). */
export interface RateLimiter {
  /** Counts one request at `now`; when over the limit, says how long until it may be retried. */
  hit(
    principal: Principal,
    now: Date,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
}

/** Defaults of RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS (functions/config.ts; CDK context). */
export const DEFAULT_RATE_LIMIT = { requests: 1200, windowSeconds: 60 } as const;
