import { nextAttempt, TRIAL_LEASE_MS } from '../../functions/domain/checkout/failover.ts';
import {
  afterOutages,
  afterOutcome,
  afterSuccess,
  afterTrialOutcome,
  type ConnectionHealth,
  claimTrial,
  healthStatus,
  INITIAL_HEALTH,
  isDownForOutages,
  NO_OUTAGE_RUN,
  type OutageRun,
} from '../../functions/domain/connection-health.ts';
import type { Outcome } from '../../functions/domain/outcomes.ts';

/**
 * Connection health in the routing simulation, with the service's pure transitions (functions/domain/
 * connection-health.ts, checkout/failover.ts), as functions/use-cases/outage-health.ts and session-openings.ts
 * apply them: outcomes feed each connection's run of outages as one container keeps it (`afterOutcome`), the
 * threshold takes it down (`afterOutages`), and an opening walks the routed order as `openSession` does: a `down`
 * connection skipped, one whose cool-down is over given its single trial, whose session's outcome decides when it
 * was down for outages (`afterTrialOutcome`). Sessions always open in the simulation.
 */
export class SimulatedHealth {
  private readonly health = new Map<string, ConnectionHealth>();
  private readonly runs = new Map<string, OutageRun>();

  isDown(id: string, at: number): boolean {
    return healthStatus(this.of(id), new Date(at)) === 'down';
  }

  /** A session's outcome known at `at`; `trial` when the session was a connection's trial after outages. */
  outcome(id: string, outcome: Outcome, at: number, trial: boolean): void {
    const now = new Date(at);
    if (trial) {
      this.health.set(id, afterTrialOutcome(this.of(id), outcome, now) ?? this.of(id));
      return;
    }
    const { run, take_down } = afterOutcome(this.runs.get(id) ?? NO_OUTAGE_RUN, outcome, now);
    this.runs.set(id, run);
    if (take_down) this.health.set(id, afterOutages(this.of(id), now) ?? this.of(id));
  }

  /**
   * Where an opening at `at` opens its session, of the routed order, and whether it is the trial of a connection
   * down for outages; undefined when none may be tried.
   */
  open(ordered: readonly string[], at: number): { id: string; trial: boolean } | undefined {
    const now = new Date(at);
    for (const id of ordered) {
      const next = nextAttempt(1, this.of(id), now);
      if (next === 'skip') continue;
      const claimed = next === 'claim_trial' ? claimTrial(this.of(id), now, TRIAL_LEASE_MS) : undefined;
      if (claimed) this.health.set(id, claimed);
      this.health.set(id, afterSuccess(this.of(id)) ?? this.of(id));
      return { id, trial: claimed !== undefined && isDownForOutages(claimed) };
    }
    return undefined;
  }

  private of(id: string): ConnectionHealth {
    return this.health.get(id) ?? INITIAL_HEALTH;
  }
}
