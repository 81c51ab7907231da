import type { EndpointHealth, EndpointRef } from '../domain/endpoint-health.ts';

/**
 * The shared health of merchants' webhook endpoints (functions/domain/endpoint-health.ts), which every delivery
 * instance reads and writes so that one tenant's failing endpoint is held back everywhere at once. Every change
 * is a single-item conditional write; each returns the health after it.
 */
export interface EndpointHealthStore {
  /** The health of each endpoint, in the order asked (unknown endpoints as `UNKNOWN_ENDPOINT`). */
  getMany(endpoints: readonly EndpointRef[]): Promise<EndpointHealth[]>;
  /** Takes `slot` until `leaseUntil` if its lease has ended by `now`; undefined when another attempt holds it. */
  claimSlot(
    endpoint: EndpointRef,
    slot: number,
    leaseUntil: number,
    now: number,
  ): Promise<EndpointHealth | undefined>;
  /**
   * Records whether an attempt got a usable answer: an answer vouches for the endpoint until `healthyUntil` and
   * clears its failures; no answer counts a failure and ends its health. Frees the slot the attempt held (or
   * keeps it taken until `pauseUntil`), if its lease is still the attempt's own.
   */
  recordAnswer(
    endpoint: EndpointRef,
    answered: boolean,
    healthyUntil: number,
    held?: { slot: number; lease: number; pauseUntil?: number | undefined },
  ): Promise<EndpointHealth>;
  /** Stops vouching for an endpoint whose attempt is unanswered for long; undefined if it was not healthy. */
  markSlow(endpoint: EndpointRef): Promise<EndpointHealth | undefined>;
}
