import type { Principal } from '../domain/principal.ts';

/**
 * What a request learns about its (account, mode)'s window, for the `RateLimit-*` response headers
 * (docs/api.md#rate-limits).
 */
export interface RateLimitOutcome {
  allowed: boolean;
  /** Requests per window. */
  limit: number;
  /** Requests left in this window after this one (as far as this instance knows; never more than are left). */
  remaining: number;
  /** Seconds until the window ends (at least 1): when a refused request may be retried. */
  resetSeconds: number;
}

/** Counts requests per (account, mode). */
export interface RateLimiter {
  /** Counts one request at `now`. */
  hit(principal: Principal, now: Date): Promise<RateLimitOutcome>;
  /** Whether this instance knows the window of `now` to be spent already, from memory (no store call). */
  isSpent(principal: Principal, now: Date): boolean;
}

/** Defaults of RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS (functions/config.ts; CDK context). */
export const DEFAULT_RATE_LIMIT = { requests: 1200, windowSeconds: 60 } as const;
/**
 * How many notification ids its PSP does not know one PSP connection may have looked up per window, across every
 * instance (`UnknownNotificationIds` in functions/use-cases/psp-notifications.ts, docs/security.md#psp-notifications).
 */
export const UNKNOWN_ID_LOOKUPS = { limit: 30, windowSeconds: 60 } as const;

/** The longest window RATE_LIMIT_WINDOW_SECONDS may set: a day. */
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400;
