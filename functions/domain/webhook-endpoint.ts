import { newId } from './ids.ts';
import { EVENT_TYPES, type EventType } from './link-events.ts';
import type { Mode, Principal } from './principal.ts';
import { SUBSCRIPTION_EVENT_TYPES } from './subscription.ts';

/**
 * Webhook endpoints (docs/webhooks.md#webhook-endpoints): URLs a merchant registers once per account and mode,
 * each with the event types it wants and a signing secret of its own. Every event goes to each enabled endpoint
 * that subscribes to its type, besides the link's own `webhook_url`. Pure rules; the store is
 * functions/ports/webhook-endpoints.ts.
 */

/** Events about an endpoint itself, not about a link. */
export const ENDPOINT_EVENT_TYPES = ['webhook_endpoint.test', 'webhook_endpoint.disabled'] as const;
export type EndpointEventType = (typeof ENDPOINT_EVENT_TYPES)[number];

/** Every type an event may have. */
export type WebhookEventType = EventType | EndpointEventType;

/**
 * What `enabled_events` may name: every link and refund event, and the disabling of another endpoint. The test
 * event goes to the endpoint it tests whatever it subscribes to, so it is not subscribable.
 */
export const SUBSCRIBABLE_EVENT_TYPES = [
  ...EVENT_TYPES,
  ...SUBSCRIPTION_EVENT_TYPES,
  'webhook_endpoint.disabled',
] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** `["*"]`: every type, including those added later. */
export const ALL_EVENTS = '*';

/** Endpoints one account may hold per mode. */
export const MAX_WEBHOOK_ENDPOINTS = 16;

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** After a rotation the previous secret keeps signing this long, as the account's own secret does. */
export const ENDPOINT_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookEndpoint {
  id: string;
  account: string;
  mode: Mode;
  url: string;
  enabled_events: string[];
  description: string | null;
  status: EndpointStatus;
  created_at: string;
  updated_at: string;
}

/** The fields a merchant sets. */
export interface EndpointInput {
  url: string;
  enabled_events: string[];
  description?: string | null | undefined;
}

export function newWebhookEndpoint(principal: Principal, input: EndpointInput, now: Date): WebhookEndpoint {
  const at = now.toISOString();
  return {
    id: newId('we'),
    account: principal.account,
    mode: principal.mode,
    url: input.url,
    enabled_events: normalisedEvents(input.enabled_events),
    description: input.description ?? null,
    status: 'enabled',
    created_at: at,
    updated_at: at,
  };
}

/** `["*"]` alone when it is named at all (it already says everything); otherwise each type once, in order. */
export function normalisedEvents(events: readonly string[]): string[] {
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];
}

/** Whether an event of `type` goes to `endpoint`: it is enabled and names the type or `*`. */
export function subscribes(endpoint: Pick<WebhookEndpoint, 'status' | 'enabled_events'>, type: string) {
  return (
    endpoint.status === 'enabled' &&
    (endpoint.enabled_events.includes(ALL_EVENTS) || endpoint.enabled_events.includes(type))
  );
}

/** An endpoint's signing secrets as stored (opened): the current one, and the previous one during an overlap. */
export interface EndpointSecrets {
  secret: string;
  previous_secret?: string | undefined;
  previous_until?: string | undefined;
}

/** The secrets a webhook is signed with at `now`: the current one first, then the previous while it overlaps. */
export function secretsInForce(secrets: EndpointSecrets, now: Date): string[] {
  const previousValid =
    secrets.previous_secret !== undefined &&
    secrets.previous_until !== undefined &&
    Date.parse(secrets.previous_until) > now.getTime();
  return previousValid ? [secrets.secret, secrets.previous_secret as string] : [secrets.secret];
}

/** What a sealed endpoint secret is bound to: it opens for this endpoint of this account and mode only. */
export function endpointSecretContext(endpoint: Pick<WebhookEndpoint, 'id' | 'account' | 'mode'>) {
  return {
    purpose: 'webhook-signing-secret',
    account: endpoint.account,
    mode: endpoint.mode,
    endpoint: endpoint.id,
  };
}

/** The endpoint as an event's `data` and the API show it: without its tenant. */
export type EndpointSnapshot = Omit<WebhookEndpoint, 'account' | 'mode'> & { object: 'webhook_endpoint' };

export function endpointSnapshot(endpoint: WebhookEndpoint): EndpointSnapshot {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    url: endpoint.url,
    enabled_events: endpoint.enabled_events,
    description: endpoint.description,
    status: endpoint.status,
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
  };
}

/**
 * A test event's attempts give up after 5 s, not the 15 s of other webhooks: `POST .../test` waits for the
 * first one, and an endpoint that hangs is reported as timed out instead of holding the function.
 */
export const TEST_EVENT_TIMEOUT_MS = 5_000;
/** How long `POST .../test` waits for the attempt: its timeout, and the queue's hand-over before it. */
export const TEST_EVENT_WAIT_MS = TEST_EVENT_TIMEOUT_MS + 3_000;
/**
 * One test at a time per endpoint: a lease on the endpoint item, freed when the call answers. It outlasts the
 * function's 25 s timeout (lib/routes.ts), so it is never taken from a call still running, and a call that
 * died frees it on its own.
 */
export const TEST_LEASE_MS = 30_000;

/** Attempts an endpoint's health is computed from: its latest ones. */
export const HEALTH_WINDOW = 100;

/** An endpoint that failed every attempt for this long is disabled (docs/webhooks.md#endpoint-health). */
export const AUTO_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** What an endpoint's item keeps of its attempts: the latest `[ok, duration_ms]`, and since when all failed. */
export interface EndpointStats {
  window: [0 | 1, number][];
  failing_since?: string | undefined;
}

export interface EndpointHealthView {
  /** Attempts counted (the latest {@link HEALTH_WINDOW}). */
  attempts: number;
  /** Share of them answered with a 2xx, 0 to 1; null before the first attempt. */
  success_rate: number | null;
  /** Median and 95th percentile of their durations; null before the first attempt. */
  latency_ms: { p50: number; p95: number } | null;
  /** Since when every attempt failed; null after a success. */
  failing_since: string | null;
}

const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] as number;

export function endpointHealthView(stats: EndpointStats): EndpointHealthView {
  const window = stats.window.slice(-HEALTH_WINDOW);
  const durations = window.map(([, ms]) => ms).sort((a, b) => a - b);
  return {
    attempts: window.length,
    success_rate: window.length
      ? Math.round((window.filter(([ok]) => ok).length / window.length) * 1000) / 1000
      : null,
    latency_ms: window.length ? { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) } : null,
    failing_since: stats.failing_since ?? null,
  };
}

/** Whether an endpoint failing every attempt since `failingSince` is due to be disabled at `now`. */
export function failingTooLong(failingSince: string | undefined, now: Date): boolean {
  return failingSince !== undefined && now.getTime() - Date.parse(failingSince) >= AUTO_DISABLE_AFTER_MS;
}
