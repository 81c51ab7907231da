import { type EndpointRef, endpointOf } from '../domain/endpoint-health.ts';
import type { Mode } from '../domain/principal.ts';
import { isLinkEvent, isSubscriptionEvent, type StoredEvent } from '../domain/webhook.ts';
import type { EndpointRecoveryStore } from '../ports/endpoint-recoveries.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { SubscriptionRepository } from '../ports/subscription-repository.ts';
import { readHealthOf } from './endpoint-isolation.ts';
import { type AttemptDependencies, attempt, type DeliveryOutcome } from './webhook-attempt.ts';
import { destinationOf, fanOut } from './webhook-fan-out.ts';
import { type Invocation, newInvocation, putInvocationMetrics } from './webhook-invocation.ts';

/*
 * Webhook delivery: one attempt per queue message (docs/webhooks.md). Apart from the sweeper, the delivery log
 * and redelivery (functions/use-cases/webhooks.ts) so that only the delivery function bundles the signing code.
 * This module takes a message from its event to its attempt; the concerns it hands on have a module each:
 * the attempt and its record (webhook-attempt.ts), endpoint health and isolation (endpoint-isolation.ts), the
 * fan-out to webhook endpoints and where each delivery goes (webhook-fan-out.ts), the batch (webhook-invocation.ts).
 * What a container remembers between batches (caches, attempts in flight) is in the dependencies, built once
 * per container by functions/dependencies.ts.
 */

/** A queue message: which event, the delivery sequence it was sent for, and whether it is known committed. */
export interface EventMessage {
  event_id: string;
  mode: Mode;
  delivery_seq: number;
  committed?: boolean;
  /** The event's delivery to this webhook endpoint; absent: the event's own, to its link's `webhook_url`. */
  endpoint_id?: string | undefined;
}

export interface DeliveryDependencies extends AttemptDependencies {
  links: LinkRepository;
  /** A subscription's event counts once its subscription names it, as a link's (functions/ports/subscription-repository.ts). */
  subscriptions: Pick<SubscriptionRepository, 'get'>;
  /** Recoveries of endpoints, carried on by their own messages on the same queue (functions/use-cases/recovery.ts). */
  recoveries: EndpointRecoveryStore;
  /**
   * The messages (event and sequence) this container is attempting right now. On AWS a container handles one
   * invocation at a time, so this is what keeps two copies of a message in one batch from both posting (the
   * local stack runs its pollers in one process, so there it covers concurrent batches too).
   */
  attemptsInFlight: Set<string>;
}

/**
 * Whether the link or subscription the event is about names it (its commit point); an endpoint's event is recorded
 * by whoever made it, and is never an orphan.
 */
async function isCommitted(deps: DeliveryDependencies, event: StoredEvent): Promise<boolean> {
  if (isLinkEvent(event))
    return (await deps.links.get(event.link_id, event.mode))?.event_ids.includes(event.id) === true;
  if (isSubscriptionEvent(event)) {
    const subscription = await deps.subscriptions.get(event.subscription_id, event.mode);
    return subscription?.event_ids.includes(event.id) === true;
  }
  return true;
}

const eventKey = (message: EventMessage) =>
  `${message.mode}#${message.event_id}#${message.endpoint_id ?? ''}`;

/** The stored events of a batch of messages, by message, read together. */
export type BatchEvents = ReadonlyMap<string, StoredEvent | undefined>;

/** Reads the events of a batch of queue messages with one request, instead of one read per record. */
export async function readBatchEvents(
  events: Pick<EventRepository, 'getMany'>,
  messages: readonly EventMessage[],
): Promise<BatchEvents> {
  const found = await events.getMany(
    messages.map((message) => ({
      id: message.event_id,
      mode: message.mode,
      endpoint_id: message.endpoint_id,
    })),
  );
  return new Map(messages.map((message, index) => [eventKey(message), found[index]]));
}

/**
 * Reads the health of the batch's endpoints that this container has not read within the isolation's `cacheMs`,
 * with one request, so that its records decide from the cache.
 */
export async function readEndpointHealth(
  deps: DeliveryDependencies,
  events: Iterable<StoredEvent | undefined>,
): Promise<void> {
  const endpoints: EndpointRef[] = [];
  for (const event of events) {
    if (event?.status !== 'pending') continue;
    const destination = await destinationOf(deps, event);
    if (typeof destination !== 'string')
      endpoints.push(endpointOf(event.account, event.mode, destination.url));
  }
  await readHealthOf(deps, endpoints);
}

/**
 * Handles one queue message: makes at most one attempt to POST the event to its link's `webhook_url` and
 * records it. The event comes from `batch` (the batch's events, read together) or else is read here. Safe under
 * duplicates and races: a message for another sequence or a finished event is skipped, a copy of a message this
 * instance is already attempting is skipped, and only the first attempt to finish for a sequence changes the
 * event's state (copies of a message processed at the same moment by two instances may both post: at-least-once,
 * same `webhook-id`). Orphan events (no link names them: their transition never committed) leave the outbox
 * without any delivery. An endpoint that may not take another attempt now (docs/webhooks.md, "Isolation") gets
 * none: the event is deferred, with its place in the schedule kept.
 * Throws only on infrastructure failures (store, secret), so the record is retried.
 */
export async function deliverEvent(
  deps: DeliveryDependencies,
  message: EventMessage,
  batch?: BatchEvents,
  invocation?: Invocation,
): Promise<DeliveryOutcome> {
  if (!invocation) {
    const alone = newInvocation(deps.now().getTime());
    try {
      return await deliverEvent(deps, message, batch, alone);
    } finally {
      putInvocationMetrics(alone);
    }
  }
  const event = batch?.has(eventKey(message))
    ? batch.get(eventKey(message))
    : await deps.events.get(message.event_id, message.mode, message.endpoint_id);
  if (!event) return 'skipped_missing';
  if (event.status !== 'pending' || event.delivery_seq !== message.delivery_seq) return 'skipped_stale';
  // A delivery to an endpoint exists only once its event was found committed (below), and an event about an
  // endpoint is recorded by whoever made it: only a link's event can be an orphan.
  if (!message.committed && !event.endpoint_id && !(await isCommitted(deps, event))) {
    await deps.events.dropFromOutbox(event);
    return 'skipped_orphan';
  }
  if (!event.endpoint_id && !event.fanned_out) await fanOut(deps, event, invocation.startedAt);
  const inFlight = `${eventKey(message)}#${event.delivery_seq}`;
  if (deps.attemptsInFlight.has(inFlight)) return 'skipped_duplicate';
  deps.attemptsInFlight.add(inFlight);
  try {
    return await attempt(deps, event, invocation);
  } finally {
    deps.attemptsInFlight.delete(inFlight);
  }
}
