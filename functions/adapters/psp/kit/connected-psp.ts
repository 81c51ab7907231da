import type { PspConnection } from '../../../domain/connection.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';

/**
 * What every adapter holds from the two things it is built from, written once: its PSP's descriptor (whose id and
 * session limits the `Psp` port exposes, and whose tables its errors and declines are read by) and the connection
 * it serves (whose mode every notification and status is checked against).
 */
export abstract class ConnectedPsp<D extends PspDescriptor> {
  readonly provider: D['id'];
  readonly sessionLimits: D['sessionLimits'];
  protected readonly descriptor: D;
  protected readonly connection: PspConnection;

  constructor(descriptor: D, connection: PspConnection) {
    this.descriptor = descriptor;
    this.provider = descriptor.id;
    this.sessionLimits = descriptor.sessionLimits;
    this.connection = connection;
  }
}
