import type { Mode } from '../domain/principal.ts';
import type {
  DeliveryAttempt,
  DeliveryDecision,
  EndpointEvent,
  StoredEvent,
  WebhookEvent,
} from '../domain/webhook.ts';

/** An undelivered event whose outbox due time has passed. */
export interface OutboxEntry {
  id: string;
  account: string;
  mode: Mode;
  delivery_seq: number;
  /** Set when the entry is a delivery to a webhook endpoint rather than the event itself. */
  endpoint_id?: string;
  /** Set when the entry is a running recovery of the endpoint `id` (its step as `delivery_seq`). */
  recovery?: true;
  /** The opaque due marker read from the outbox index; a later update is conditioned on it. */
  due: string;
}

/**
 * Webhook events and their delivery state. Events are created by `LinkRepository.commit` (already in the
 * outbox); this port reads them, records deliveries and serves the outbox sweeper. Every state change is a
 * single-item conditional write, so racing workers and duplicate messages cannot both change the state.
 */
/** Which event (keyed by id and mode), or which of its deliveries to a webhook endpoint. */
export interface EventKey {
  id: string;
  mode: Mode;
  endpoint_id?: string | undefined;
}

/** What the events API asks of a tenant's feed. */
export interface FeedQuery {
  /** Events created at or after this (ISO 8601). */
  from: string;
  /** Events strictly before this feed position (`<created_at>#<id>`, a cursor's), newest first. */
  before?: string | undefined;
  limit: number;
  type?: string | undefined;
  linkId?: string | undefined;
}

export interface EventRepository {
  /** A strongly consistent read of the event, or of its delivery to `endpointId`. */
  get(id: string, mode: Mode, endpointId?: string): Promise<StoredEvent | undefined>;
  /**
   * Strongly consistent reads of several events with as few requests as the store allows (one for a queue
   * batch or a link's events); the answers in the order asked, undefined where there is none.
   */
  getMany(refs: readonly EventKey[]): Promise<(StoredEvent | undefined)[]>;
  /**
   * Records the attempt (on the event itself: also that it is fanned out) and the decision if the event is still pending at `event.delivery_seq`: delivered and
   * failed leave the outbox, pending moves the due time to `dueAt` and the sequence to the next message.
   * Returns false when the state had moved on (a duplicate message's attempt finished first, or a redelivery
   * started): the attempt is then only added to the log. The log keeps the latest `ATTEMPTS_KEPT` attempts and
   * counts every one; no attempt recorded concurrently is lost from it.
   */
  finish(
    event: StoredEvent,
    attempt: DeliveryAttempt,
    decision: DeliveryDecision,
    dueAt: Date,
  ): Promise<boolean>;
  /**
   * Holds a pending event back without an attempt (its endpoint may not take one now): the next message gets
   * the next sequence and the outbox due time moves to `dueAt`; the schedule's position is unchanged. False when
   * the event is no longer pending at `event.delivery_seq`.
   */
  defer(event: StoredEvent, dueAt: Date): Promise<boolean>;
  /** Takes an orphan event (no link names it) out of the outbox for good. */
  dropFromOutbox(event: StoredEvent): Promise<void>;
  /** Up to `limit` undelivered events whose due time is at or before `now`. */
  dueEntries(now: Date, limit: number): Promise<OutboxEntry[]>;
  /** Moves an entry's due time to `dueAt` if nobody changed it since it was read; false otherwise. */
  postpone(entry: OutboxEntry, dueAt: Date): Promise<boolean>;
  /**
   * Starts a new delivery round whatever the status: pending again, schedule from the start, a new sequence
   * (in-flight messages become stale), due at `dueAt`. Returns the updated event, or undefined if none.
   */
  restart(id: string, mode: Mode, dueAt: Date, endpointId?: string): Promise<StoredEvent | undefined>;
  /**
   * Creates the event's deliveries to these webhook endpoints, each a copy of the event with its own delivery
   * state, born in the outbox due at `dueAt`; a delivery that exists already is left as it is. Returns the
   * endpoints whose delivery this call created.
   */
  addDeliveries(event: WebhookEvent, endpointIds: readonly string[], dueAt: Date): Promise<string[]>;
  /** The event and every delivery of it to a webhook endpoint (strongly consistent), or undefined. */
  withDeliveries(
    id: string,
    mode: Mode,
  ): Promise<{ event: StoredEvent; deliveries: StoredEvent[] } | undefined>;
  /**
   * A page of the tenant's events, newest first, and the feed position to continue from when there may be more.
   * Filters may make a page short: it then ends where the reads stopped.
   */
  feed(
    account: string,
    mode: Mode,
    query: FeedQuery,
  ): Promise<{ events: StoredEvent[]; next: string | undefined }>;
  /** The tenant's events created at or after `from`, oldest first, after the feed position `after`. */
  feedSince(
    account: string,
    mode: Mode,
    from: string,
    after: string | undefined,
    limit: number,
  ): Promise<{ events: StoredEvent[]; next: string | undefined }>;
  /**
   * Records an event about a webhook endpoint (its test, another's disabling): the event (in the feed, fanned
   * out, no link to deliver to) and its deliveries to `endpointIds`, due at `dueAt`.
   */
  recordEndpointEvent(event: EndpointEvent, endpointIds: readonly string[], dueAt: Date): Promise<void>;
}
