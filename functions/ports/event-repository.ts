import type { Mode } from '../domain/principal.ts';
import type { DeliveryAttempt, DeliveryDecision, StoredEvent } from '../domain/webhook.ts';

/** An undelivered event whose outbox due time has passed. */
export interface OutboxEntry {
  id: string;
  account: string;
  mode: Mode;
  delivery_seq: number;
  /** The opaque due marker read from the outbox index; a later update is conditioned on it. */
  due: string;
}

/**
 * Webhook events and their delivery state. Events are created by `LinkRepository.commit` (already in the
 * outbox); this port reads them, records deliveries and serves the outbox sweeper. Every state change is a
 * single-item conditional write, so racing workers and duplicate messages cannot both change the state.
 */
/** Which event: events are keyed by id and mode. */
export interface EventKey {
  id: string;
  mode: Mode;
}

export interface EventRepository {
  /** A strongly consistent read. */
  get(id: string, mode: Mode): Promise<StoredEvent | undefined>;
  /**
   * Strongly consistent reads of several events with as few requests as the store allows (one for a queue
   * batch or a link's events); the answers in the order asked, undefined where there is none.
   */
  getMany(refs: readonly EventKey[]): Promise<(StoredEvent | undefined)[]>;
  /**
   * Records the attempt and the decision if the event is still pending at `event.delivery_seq`: delivered and
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
  restart(id: string, mode: Mode, dueAt: Date): Promise<StoredEvent | undefined>;
}
