import type { Mode } from '../domain/principal.ts';

/**
 * A recovery of a webhook endpoint (docs/webhooks.md#recovery): the events since `since` that the endpoint never
 * acknowledged are handed to delivery again, a page at a time, oldest first. `step` numbers the queue messages
 * that may carry it on (as a delivery's `delivery_seq`), `cursor` is the feed position reached.
 */
export interface Recovery {
  endpoint_id: string;
  account: string;
  mode: Mode;
  since: string;
  status: 'running' | 'done';
  step: number;
  cursor?: string | undefined;
  /** Deliveries handed to the queue so far. */
  queued: number;
  started_at: string;
  finished_at?: string | undefined;
}

/** At most one running recovery per endpoint, kept by conditional writes; while running it is in the outbox. */
export interface EndpointRecoveryStore {
  /** Starts `recovery` (due in the outbox at `dueAt`) unless one is running for the endpoint; false then. */
  start(recovery: Recovery, dueAt: Date): Promise<boolean>;
  get(account: string, mode: Mode, endpointId: string): Promise<Recovery | undefined>;
  /**
   * Moves a running recovery from `recovery.step` to the next step, unchanged otherwise, due at `dueAt`: the claim
   * of the step's work. False when the step was claimed already (a duplicate message) or the recovery ended.
   */
  claim(recovery: Recovery, dueAt: Date): Promise<boolean>;
  /** Records the page done at the claimed step: the new cursor and count; `done` ends it and leaves the outbox. */
  progress(
    recovery: Recovery,
    update: { cursor: string | undefined; queued: number; done: boolean; at: Date },
  ): Promise<boolean>;
}
