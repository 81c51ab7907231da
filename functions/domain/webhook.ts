import { eventLink, type LinkEvent } from './link-events.ts';
import type { SubscriptionEvent } from './subscription-events.ts';
import type { EndpointEventType, EndpointSnapshot } from './webhook-endpoint.ts';

/**
 * Webhook delivery rules (docs/webhooks.md#delivery-and-retries), pure: the retry schedule, what an attempt's outcome means,
 * and the Standard Webhooks request. The delivery use case (functions/use-cases/webhook-delivery.ts) applies them.
 */

export const EVENT_STATUSES = ['pending', 'delivered', 'failed'] as const;
/** `pending` while deliveries may still happen; `delivered` and `failed` are final until a redelivery. */
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** One delivery attempt as the merchant sees it in the delivery log. */
export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/**
 * An event about a webhook endpoint itself (its test event, or another endpoint's disabling): no link, and it
 * goes to webhook endpoints only. `data` is the endpoint it is about.
 */
export interface EndpointEvent {
  id: string;
  type: EndpointEventType;
  link_id?: undefined;
  account: string;
  mode: LinkEvent['mode'];
  created_at: string;
  data: EndpointSnapshot;
}

/** Every event a webhook may carry. */
export type WebhookEvent = LinkEvent | EndpointEvent | SubscriptionEvent;

/** Whether the event is about a link (and so also goes to the link's `webhook_url`). */
export const isLinkEvent = (event: WebhookEvent): event is LinkEvent => event.link_id !== undefined;

/**
 * Whether the event is about a subscription (docs/webhooks.md#subscription-events): it also goes to the
 * `webhook_url` its subscription link had, which the event carries.
 */
export const isSubscriptionEvent = (event: WebhookEvent): event is SubscriptionEvent =>
  'subscription_id' in event && event.subscription_id !== undefined;

/**
 * The event's own destination besides webhook endpoints: its link's `webhook_url`, or the one its subscription
 * link had; null for an endpoint's event, or when there is none.
 */
export function ownWebhookUrl(event: WebhookEvent): string | null {
  if (isLinkEvent(event)) return eventLink(event).webhook_url;
  return isSubscriptionEvent(event) ? event.webhook_url : null;
}

/** Whether the event has an own destination to be delivered to (see `ownWebhookUrl`), set or not. */
export const hasOwnDestination = (event: WebhookEvent): boolean =>
  isLinkEvent(event) || isSubscriptionEvent(event);

/** The delivery state of one destination of an event (see {@link StoredEvent}). */
export interface DeliveryState {
  status: EventStatus;
  attempts: DeliveryAttempt[];
  attempt_count?: number;
  delivery_seq: number;
  round_attempts: number;
  /** While undelivered: when the outbox sweeper will queue it again unless delivery moves that (ISO 8601). */
  outbox_due?: string;
}

/**
 * A stored event with its delivery state. `delivery_seq` numbers the messages that may trigger an attempt:
 * a queue message carries the sequence it was sent for, and anything else is a stale duplicate. `round_attempts`
 * counts the failed attempts since the event was created or last redelivered (the position in the schedule).
 * `attempts` holds the latest {@link ATTEMPTS_KEPT} attempts, oldest first; `attempt_count` counts them all
 * (absent on events recorded before the log was bounded, whose `attempts` then holds every attempt).
 */
export type StoredEvent = WebhookEvent &
  DeliveryState & {
    /**
     * Set on a delivery to a webhook endpoint (docs/webhooks.md#webhook-endpoints): a copy of the event with its
     * own delivery state, one per subscribing endpoint. Absent on the event itself, whose state is that of its
     * link's `webhook_url`.
     */
    endpoint_id?: string;
    /** On the event itself: its deliveries to the endpoints subscribed to it exist (see `fanOut`). */
    fanned_out?: boolean;
  };

/**
 * Attempts an event's delivery log keeps (the latest ones). Without a bound, redeliveries would grow the item
 * past DynamoDB's 400 KB limit, after which no attempt could be recorded at all.
 */
export const ATTEMPTS_KEPT = 50;

/** The attempts an event keeps once `attempt` is recorded: the latest {@link ATTEMPTS_KEPT}. */
export function keptAttempts(
  attempts: readonly DeliveryAttempt[],
  attempt: DeliveryAttempt,
): DeliveryAttempt[] {
  return [...attempts, attempt].slice(-ATTEMPTS_KEPT);
}

/** How many attempts an event has had in all, including those its log no longer keeps. */
export const attemptCount = (event: DeliveryState): number => event.attempt_count ?? event.attempts.length;

/** What the merchant reads in `GET /v1/payment-links/{id}/events`. */
export interface EventLogEntry {
  id: string;
  type: LinkEvent['type'];
  created_at: string;
  status: EventStatus;
  /** The latest attempts, oldest first. */
  attempts: DeliveryAttempt[];
  /** Every attempt ever made, including those `attempts` no longer shows. */
  attempt_count: number;
}

export function toEventLogEntry(event: LinkEvent & DeliveryState): EventLogEntry {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    status: event.status,
    attempts: event.attempts.slice(-ATTEMPTS_KEPT),
    attempt_count: attemptCount(event),
  };
}

/** The whole-request deadline of one attempt. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits before the 2nd, 3rd, ... 10th attempt; after the 10th failure the event is failed. */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** ± this fraction of randomness on every wait, so that endpoints recovering from an outage are not stampeded. */
export const RETRY_JITTER = 0.2;

/** A `Retry-After` can postpone the next attempt up to this, never bring it forward. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

/**
 * How long to wait after the `failedAttempts`-th consecutive failure, or undefined when no attempt is left.
 * `random` is in [0, 1). A `Retry-After` of the endpoint (ms) is honoured when it asks for a longer wait than
 * the schedule, capped at {@link MAX_RETRY_AFTER_MS}.
 */
export function retryDelayMs(
  failedAttempts: number,
  options: { random: () => number; retryAfterMs?: number | undefined; schedule?: readonly number[] },
): number | undefined {
  const schedule = options.schedule ?? RETRY_SCHEDULE_MS;
  const base = schedule[failedAttempts - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - RETRY_JITTER + 2 * RETRY_JITTER * options.random()));
  if (options.retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(options.retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** `Retry-After` as delay seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** What one attempt produced, as the HTTP sender reports it. */
export interface AttemptResult {
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  retry_after_ms?: number | undefined;
}

export type DeliveryDecision =
  | { status: 'delivered' }
  | { status: 'failed'; reason: 'gone' | 'exhausted' | 'no_endpoint' }
  | { status: 'pending'; retryInMs: number };

/**
 * The event's fate after an attempt: any 2xx delivers; 410 Gone stops for good; anything else (3xx included,
 * redirects are never followed) is retried on the schedule until it runs out.
 */
export function decideAfterAttempt(
  result: AttemptResult,
  failedAttemptsBefore: number,
  options: { random: () => number; schedule?: readonly number[] },
): DeliveryDecision {
  const code = result.status_code;
  if (code !== null && code >= 200 && code < 300) return { status: 'delivered' };
  if (code === 410) return { status: 'failed', reason: 'gone' };
  const retryInMs = retryDelayMs(failedAttemptsBefore + 1, {
    ...options,
    retryAfterMs: result.retry_after_ms,
  });
  return retryInMs === undefined
    ? { status: 'failed', reason: 'exhausted' }
    : { status: 'pending', retryInMs };
}

/** The Standard Webhooks body: `{type, timestamp, data}`; the timestamp is when the event happened. */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.created_at, data: event.data });
}

/**
 * How long an undelivered event waits in the outbox before the sweeper hands it to the queue again, counted
 * from when it was recorded or last queued. It exceeds the timeout of every function that commits transitions
 * (so the sweeper never races a commit in progress) and the queue's hand-over time.
 */
export const OUTBOX_GRACE_MS = 2 * MINUTE;

/** SQS delays a message at most 15 minutes; a longer wait is left to the outbox sweeper. */
export const MAX_QUEUE_DELAY_MS = 15 * MINUTE;

/** How long events can be listed and read through the events API (`GET /v1/events`). */
export const EVENT_RETENTION_MS = 30 * 24 * HOUR;
