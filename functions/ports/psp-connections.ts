import type { FeeLine, PspConnection } from '../domain/connection.ts';
import type { ConnectionHealth } from '../domain/connection-health.ts';
import type { Mode } from '../domain/principal.ts';
import type { Routing } from '../domain/routing.ts';

/** A stored connection with its shared health. */
export interface ConnectionState {
  connection: PspConnection;
  health: ConnectionHealth;
}

/** What checkout needs of an (account, mode), in one read: its connections (oldest first) and its routing. */
export interface ConnectionDirectory {
  connections: ConnectionState[];
  routing: Routing | null;
}

/** Persistence of PSP connections, their health and the routing document of each (account, mode). */
export interface PspConnectionRepository {
  /** Stores a new connection; false when one with its id exists already (nothing is overwritten). */
  create(connection: PspConnection): Promise<boolean>;
  get(id: string): Promise<ConnectionState | undefined>;
  directory(account: string, mode: Mode): Promise<ConnectionDirectory>;
  /** The connection with `enabled` changed, or undefined when there is no such connection. */
  setEnabled(id: string, enabled: boolean): Promise<PspConnection | undefined>;
  /** The connection with its fee lines replaced (`npm run psp -- fees`), or undefined when there is none. */
  setFees(id: string, fees: FeeLine[]): Promise<PspConnection | undefined>;
  /** Deletes it; the removed connection, or undefined when there was none. */
  remove(id: string): Promise<PspConnection | undefined>;
  /**
   * Applies `change` to the connection's health with a write conditioned on the health's `revision`, reading
   * it again and recomputing after a concurrent write (`known` saves the first read). Returns what was
   * written, or undefined when `change` decided there was nothing to write.
   */
  updateHealth(
    connection: Pick<PspConnection, 'id' | 'account' | 'mode'>,
    change: (health: ConnectionHealth) => ConnectionHealth | undefined,
    known?: ConnectionHealth,
  ): Promise<ConnectionHealth | undefined>;
  putRouting(account: string, mode: Mode, routing: Routing): Promise<void>;
}
