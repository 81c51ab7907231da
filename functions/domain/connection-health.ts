import type { Outcome } from './outcomes.ts';

/**
 * The health of a PSP connection, shared by every instance through its stored record (docs/orchestration.md,
 * "Health"). Pure transitions; the repository stores each one with a write conditioned on `revision`, so two
 * instances never both claim the one trial of a connection that comes back from `down`.
 */
export const FAILURES_BEFORE_DOWN = 5;
export const DOWN_FOR_MS = 60_000;

export interface ConnectionHealth {
  /**
   * Session creations that failed in a row (a success resets it); set to `FAILURES_BEFORE_DOWN` when outages took
   * the connection down (`afterOutages`).
   */
  consecutive_failures: number;
  /** Skipped by everyone until then (also the lease of a trial in progress). */
  down_until: string | null;
  /**
   * Trial sessions of a connection taken down by outages (`afterOutages`) still to be served (paid or declined)
   * before it is back (`afterTrialOutcome`); 0 otherwise. More than 0 is what says it is down for outages
   * (`isDownForOutages`), so that no second field can disagree with it.
   */
  trials_to_pass: number;
  /** Optimistic-concurrency counter of the stored record. */
  revision: number;
}

export const HEALTH_STATUSES = ['healthy', 'degraded', 'down'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export const INITIAL_HEALTH: ConnectionHealth = {
  consecutive_failures: 0,
  down_until: null,
  trials_to_pass: 0,
  revision: 0,
};

/**
 * How long the trial session of a connection down for outages reads `down` to everybody else while its outcome is
 * awaited: a card session's outcome is known within minutes; past this (its buyer left) another trial is claimed.
 */
export const OUTAGE_TRIAL_LEASE_MS = 5 * 60_000;

export function healthStatus(health: ConnectionHealth, now: Date): HealthStatus {
  if (health.down_until !== null && Date.parse(health.down_until) > now.getTime()) return 'down';
  return health.consecutive_failures === 0 ? 'healthy' : 'degraded';
}

/**
 * Taken down by outages after the opening and not back yet: its trial is a session whose outcome decides
 * (`afterTrialOutcome`), as an opening that succeeds says nothing of a PSP failing after it.
 */
export function isDownForOutages(health: ConnectionHealth): boolean {
  return health.trials_to_pass > 0;
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
 * the instance that claimed it dies, another gets the trial after that; for a connection down for outages, for
 * `OUTAGE_TRIAL_LEASE_MS`, the time its trial session's outcome takes. `undefined` when there is none to claim.
 */
export function claimTrial(
  health: ConnectionHealth,
  now: Date,
  leaseMs: number,
): ConnectionHealth | undefined {
  if (!awaitsTrial(health, now)) return undefined;
  const lease = isDownForOutages(health) ? Math.max(leaseMs, OUTAGE_TRIAL_LEASE_MS) : leaseMs;
  return next(health, { down_until: new Date(now.getTime() + lease).toISOString() });
}

/**
 * A session was created: the count starts again. `undefined` when the record already says so (no write), and for
 * a connection down for outages, whose trial session opened: its outcome decides (`afterTrialOutcome`).
 */
export function afterSuccess(health: ConnectionHealth): ConnectionHealth | undefined {
  if (isDownForOutages(health)) return undefined;
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

/**
 * Sessions in a row that ended in an outage (opened, then failed with a failure of class `outage`) that take a
 * connection down as failed openings do. Counted by each container over the outcomes it sees (docs/orchestration.md,
 * "Health"), so that an outage costs no health write of its own.
 */
export const OUTAGES_BEFORE_DOWN = FAILURES_BEFORE_DOWN;

/**
 * Trial sessions in a row a connection down for outages must see served before it is back: a PSP failing in a
 * burst still pays some of its sessions, and one trial paid by chance brought the connection back into a burst
 * that was not over, for the minutes its sessions' outcomes take to show it again (measured on the `bursts` world
 * of docs/performance.md#routing-that-learns). The second is tried as soon as the first is served.
 */
export const OUTAGE_TRIALS_TO_PASS = 2;

/**
 * A container saw `OUTAGES_BEFORE_DOWN` sessions in a row end in an outage: down for `DOWN_FOR_MS`, then one trial
 * session at a time (the count is set at the threshold so that `awaitsTrial` holds once the time is over), until
 * `OUTAGE_TRIALS_TO_PASS` in a row are served. `undefined` when the connection is down already (another container
 * took it down, or a trial is under way): no write.
 */
export function afterOutages(health: ConnectionHealth, now: Date): ConnectionHealth | undefined {
  if (healthStatus(health, now) === 'down') return undefined;
  return next(health, {
    consecutive_failures: Math.max(health.consecutive_failures, FAILURES_BEFORE_DOWN),
    down_until: new Date(now.getTime() + DOWN_FOR_MS).toISOString(),
    trials_to_pass: OUTAGE_TRIALS_TO_PASS,
  });
}

/**
 * The outcome of the trial session of a connection down for outages: paid or declined (the PSP served it), the
 * next trial may be claimed at once, and the last of `trials_to_pass` brings the connection back; another outage
 * takes it down for `DOWN_FOR_MS` again, its trials to pass all over again. `undefined` (no write) for an outcome
 * that says neither, or when the connection is no longer down for outages.
 */
export function afterTrialOutcome(
  health: ConnectionHealth,
  outcome: Outcome,
  now: Date,
): ConnectionHealth | undefined {
  if (!isDownForOutages(health)) return undefined;
  if (outcome === 'paid' || outcome === 'failed') {
    if (health.trials_to_pass > 1) {
      return next(health, { down_until: null, trials_to_pass: health.trials_to_pass - 1 });
    }
    return next(health, { consecutive_failures: 0, down_until: null, trials_to_pass: 0 });
  }
  if (outcome !== 'outage') return undefined;
  return next(health, {
    down_until: new Date(now.getTime() + DOWN_FOR_MS).toISOString(),
    trials_to_pass: OUTAGE_TRIALS_TO_PASS,
  });
}

/** A connection's outages in a row as one container saw them, and until when that container need not write. */
export interface OutageRun {
  outages: number;
  /** Epoch ms: the connection was taken down until then, so further outages write nothing. */
  quiet_until: number;
}

export const NO_OUTAGE_RUN: OutageRun = Object.freeze({ outages: 0, quiet_until: 0 });

/**
 * One container's run after a session's outcome: an outage adds one, a paid or declined session (the PSP served
 * it) starts again; `take_down` at the `OUTAGES_BEFORE_DOWN`th in a row, when the container writes `afterOutages`
 * and then nothing for `DOWN_FOR_MS`, as the connection is down by then. An outage costs no write of its own.
 */
export function afterOutcome(
  run: OutageRun,
  outcome: Outcome,
  now: Date,
): { run: OutageRun; take_down: boolean } {
  if (outcome === 'paid' || outcome === 'failed') return { run: { ...run, outages: 0 }, take_down: false };
  if (outcome !== 'outage' || now.getTime() < run.quiet_until) return { run, take_down: false };
  if (run.outages + 1 < OUTAGES_BEFORE_DOWN)
    return { run: { ...run, outages: run.outages + 1 }, take_down: false };
  return { run: { outages: 0, quiet_until: now.getTime() + DOWN_FOR_MS }, take_down: true };
}

function next(health: ConnectionHealth, changes: Partial<ConnectionHealth>): ConnectionHealth {
  return { ...health, ...changes, revision: health.revision + 1 };
}
