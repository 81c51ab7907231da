import { BoundedCache } from '../bounded-cache.ts';
import {
  afterOutages,
  afterOutcome,
  afterTrialOutcome,
  type ConnectionHealth,
  NO_OUTAGE_RUN,
  type OutageRun,
} from '../domain/connection-health.ts';
import type { Outcome } from '../domain/outcomes.ts';
import type { Payment } from '../domain/payment.ts';
import { logger } from '../logger.ts';
import type { PspConnectionRepository } from '../ports/psp-connections.ts';

/**
 * Outages after the opening feed the connection's health (docs/orchestration.md#health): each container keeps
 * its own run of each connection's outages (`afterOutcome`) and, at the threshold, writes `afterOutages` once;
 * then nothing more for that connection for the cool-down. The outcome of the one trial session of a connection
 * down for outages (`health_trial`) is written as it comes (`afterTrialOutcome`): back, or down again. So a
 * container writes a connection's health for outages at most once per cool-down, a read and, unless another
 * container took it down first, one conditional write, plus one write per trial (docs/scaling.md). Runs live in
 * memory: a container that stops forgets its run, which only delays the threshold.
 */
export class OutageHealth {
  private readonly runs = new BoundedCache<string, OutageRun>(1000);
  private readonly connections: Pick<PspConnectionRepository, 'updateHealth'>;
  private readonly now: () => Date;

  constructor(connections: Pick<PspConnectionRepository, 'updateHealth'>, now: () => Date) {
    this.connections = connections;
    this.now = now;
  }

  /** Counts what `outcome` of `payment` says of its connection's health; a lost write only logs. */
  async observe(
    payment: Pick<Payment, 'connection_id' | 'account' | 'mode' | 'health_trial'>,
    outcome: Outcome,
  ): Promise<void> {
    const id = payment.connection_id;
    const now = this.now();
    if (payment.health_trial) {
      // Only a paid, declined or failed-again trial decides; its opening or its buyer leaving reads nothing.
      if (outcome !== 'opened' && outcome !== 'left') {
        await this.write(payment, (health) => afterTrialOutcome(health, outcome, now));
      }
      return;
    }
    // Kept before the write, so that the container's other saves meanwhile do not write again.
    const { run, take_down } = afterOutcome(this.runs.get(id) ?? NO_OUTAGE_RUN, outcome, now);
    this.runs.set(id, run);
    if (take_down) await this.write(payment, (health) => afterOutages(health, now));
  }

  private async write(
    payment: Pick<Payment, 'connection_id' | 'account' | 'mode'>,
    change: (health: ConnectionHealth) => ConnectionHealth | undefined,
  ): Promise<void> {
    const connection = { id: payment.connection_id, account: payment.account, mode: payment.mode };
    await this.connections
      .updateHealth(connection, change)
      .catch((error: unknown) =>
        logger.warn('Connection health not recorded', { connection_id: connection.id, error }),
      );
  }
}
