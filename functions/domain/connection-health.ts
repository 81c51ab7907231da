/**
 * The health of a PSP connection, shared by every instance through its stored record (docs/orchestration.md,
 * "Health"). Pure transitions; the repository stores each one with a write conditioned on `revision`, so two
 * instances never both claim the one trial of a connection that comes back from `down`.
 */
export const FAILURES_BEFORE_DOWN = 5;
export const DOWN_FOR_MS = 60_000;

export interface ConnectionHealth {
  /** Session creations that failed in a row (a success resets it). */
  consecutive_failures: number;
  /** Skipped by everyone until then (also the lease of a trial in progress). */
  down_until: string | null;
  /** Optimistic-concurrency counter of the stored record. */
  revision: number;
}

export const HEALTH_STATUSES = ['healthy', 'degraded', 'down'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export const INITIAL_HEALTH: ConnectionHealth = { consecutive_failures: 0, down_until: null, revision: 0 };

export function healthStatus(health: ConnectionHealth, now: Date): HealthStatus {
  if (health.down_until !== null && Date.parse(health.down_until) > now.getTime()) return 'down';
  return health.consecutive_failures === 0 ? 'healthy' : 'degraded';
}

/** Whether the connection may be tried now without first claiming its trial. */
export function isAvailable(health: ConnectionHealth, now: Date): boolean {
  return healthStatus(health, now) !== 'down' && health.consecutive_failures < FAILURES_BEFORE_DOWN;
}

/** Down time is over: one instance may claim the single trial (`claimTrial`) and try it. */
export function awaitsTrial(health: ConnectionHealth, now: Date): boolean {
  return healthStatus(health, now) !== 'down' && health.consecutive_failures >= FAILURES_BEFORE_DOWN;
}

/**
 * Claims the one trial: the connection reads `down` to everybody else for `leaseMs` (one try's bound), so if
 * the instance that claimed it dies, another gets the trial after that. `undefined` when there is none to claim.
 */
export function claimTrial(
  health: ConnectionHealth,
  now: Date,
  leaseMs: number,
): ConnectionHealth | undefined {
  if (!awaitsTrial(health, now)) return undefined;
  return next(health, { down_until: new Date(now.getTime() + leaseMs).toISOString() });
}

/** A session was created: the count starts again. `undefined` when the record already says so (no write). */
export function afterSuccess(health: ConnectionHealth): ConnectionHealth | undefined {
  if (health.consecutive_failures === 0 && health.down_until === null) return undefined;
  return next(health, { consecutive_failures: 0, down_until: null });
}

/** A session creation failed (not the buyer's fault): the fifth in a row, or a failed trial, means down. */
export function afterFailure(health: ConnectionHealth, now: Date): ConnectionHealth {
  const failures = health.consecutive_failures + 1;
  return next(health, {
    consecutive_failures: failures,
    down_until:
      failures >= FAILURES_BEFORE_DOWN
        ? new Date(now.getTime() + DOWN_FOR_MS).toISOString()
        : health.down_until,
  });
}

function next(health: ConnectionHealth, changes: Partial<ConnectionHealth>): ConnectionHealth {
  return { ...health, ...changes, revision: health.revision + 1 };
}
