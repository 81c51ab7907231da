import { nextAttempt, TRIAL_LEASE_MS } from '../../functions/domain/checkout/failover.ts';
import {
  afterOutages,
  afterOutcome,
  afterSuccess,
  type ConnectionHealth,
  claimTrial,
  healthStatus,
  INITIAL_HEALTH,
  NO_OUTAGE_RUN,
  type OutageRun,
} from '../../functions/domain/connection-health.ts';
import type { Outcome } from '../../functions/domain/outcomes.ts';

/**
 * Connection health in the routing simulation, with the service's pure transitions (functions/domain/
 * connection-health.ts, checkout/failover.ts): outcomes feed each connection's run of outages as one container
 * keeps it (`afterOutcome`), the threshold takes it down (`afterOutages`), and an opening walks the routed order as
 * `openSession` does: a `down` connection skipped, one whose cool-down is over given its single trial. Sessions
 * always open in the simulation, so only outages after the opening make a connection unhealthy.
 */
export class SimulatedHealth {
  private readonly health = new Map<string, ConnectionHealth>();
  private readonly runs = new Map<string, OutageRun>();

  isDown(id: string, at: number): boolean {
    return healthStatus(this.of(id), new Date(at)) === 'down';
  }

  /** A session's outcome known at `at`. */
  outcome(id: string, outcome: Outcome, at: number): void {
    const now = new Date(at);
    const { run, take_down } = afterOutcome(this.runs.get(id) ?? NO_OUTAGE_RUN, outcome, now);
    this.runs.set(id, run);
    if (take_down) this.health.set(id, afterOutages(this.of(id), now) ?? this.of(id));
  }

  /** The connection an opening at `at` opens its session at, of the routed order; undefined when none may be tried. */
  open(ordered: readonly string[], at: number): string | undefined {
    const now = new Date(at);
    for (const id of ordered) {
      const next = nextAttempt(1, this.of(id), now);
      if (next === 'skip') continue;
      if (next === 'claim_trial')
        this.health.set(id, claimTrial(this.of(id), now, TRIAL_LEASE_MS) ?? this.of(id));
      this.health.set(id, afterSuccess(this.of(id)) ?? this.of(id));
      return id;
    }
    return undefined;
  }

  private of(id: string): ConnectionHealth {
    return this.health.get(id) ?? INITIAL_HEALTH;
  }
}
