import type { Mode } from '../domain/principal.ts';
import type { EndpointSecrets, EndpointStats, WebhookEndpoint } from '../domain/webhook-endpoint.ts';

/** An endpoint as stored: its signing secrets sealed (docs/security.md#webhook-signing-secrets), its stats. */
export interface StoredWebhookEndpoint extends WebhookEndpoint {
  sealed: EndpointSecrets;
  stats: EndpointStats;
}

/** The changes a PATCH may make. */
export type EndpointChanges = Partial<
  Pick<WebhookEndpoint, 'url' | 'enabled_events' | 'description' | 'status'>
> & { updated_at: string };

/**
 * The webhook endpoints of each (account, mode), in one partition of their own, so that delivery reads a
 * tenant's endpoints with one Query and the public-facing functions are refused the partition (signing secrets)
 * by key prefix.
 */
export interface WebhookEndpointRepository {
  /**
   * Stores a new endpoint unless the (account, mode) already holds `max`; false then. The count is kept by a
   * conditional write, so concurrent creations never pass the limit.
   */
  create(endpoint: WebhookEndpoint, sealed: EndpointSecrets, max: number): Promise<boolean>;
  /** Every endpoint of the tenant, oldest first (strongly consistent). */
  list(account: string, mode: Mode): Promise<StoredWebhookEndpoint[]>;
  get(account: string, mode: Mode, id: string): Promise<StoredWebhookEndpoint | undefined>;
  /**
   * Applies `changes` to an existing endpoint; the endpoint after, or undefined when there is none. Enabling a
   * disabled endpoint also clears its stats in the same write: the merchant says it is fixed, so the failures
   * before must not count towards the next automatic disable (docs/webhooks.md#endpoint-health).
   */
  update(
    account: string,
    mode: Mode,
    id: string,
    changes: EndpointChanges,
  ): Promise<StoredWebhookEndpoint | undefined>;
  /** Removes the endpoint (and frees its place in the count); false when there was none. */
  delete(account: string, mode: Mode, id: string): Promise<boolean>;
  /**
   * Adds an attempt's outcome to the endpoint's stats (keeping the latest `HEALTH_WINDOW`): a success clears
   * `failing_since`, a failure sets it unless set. The stats after, or undefined when the endpoint is gone.
   */
  recordAttempt(
    account: string,
    mode: Mode,
    id: string,
    outcome: { ok: boolean; durationMs: number; at: Date },
  ): Promise<EndpointStats | undefined>;
  /** Disables an enabled endpoint that is still failing since `failingSince`; the endpoint, or undefined. */
  disableFailing(
    account: string,
    mode: Mode,
    id: string,
    failingSince: string,
    at: Date,
  ): Promise<StoredWebhookEndpoint | undefined>;
  /**
   * Takes the endpoint's test lease until `until`, unless a lease still held at `now` is in the way (or there is
   * no endpoint): false then. A conditional write, so concurrent calls never both get it.
   */
  claimTest(account: string, mode: Mode, id: string, now: Date, until: Date): Promise<boolean>;
  /** Frees the lease taken until `until`, unless it has lapsed and another call holds the endpoint's now. */
  releaseTest(account: string, mode: Mode, id: string, until: Date): Promise<void>;
  /** Makes `sealedSecret` the current secret; the current one becomes the previous until `previousUntil`. */
  rotateSecret(
    account: string,
    mode: Mode,
    id: string,
    sealedSecret: string,
    previousUntil: Date,
  ): Promise<StoredWebhookEndpoint | undefined>;
}
