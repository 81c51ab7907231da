import { eventLink } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import {
  type DeliveryAttempt,
  type DeliveryDecision,
  decideAfterAttempt,
  MAX_QUEUE_DELAY_MS,
  OUTBOX_GRACE_MS,
  type StoredEvent,
  webhookBody,
} from '../domain/webhook.ts';
import { signedWebhookHeaders } from '../domain/webhook-signature.ts';
import { logger } from '../logger.ts';
import type { ApiKeyRepository } from '../ports/api-key-repository.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { WebhookSender } from '../ports/webhook-sender.ts';

/*
 * Webhook delivery: one attempt per queue message (docs/webhooks.md). Apart from the sweeper, the delivery log
 * and redelivery (functions/use-cases/webhooks.ts) so that only the delivery function bundles the signing code.
 */

/** A queue message: which event, the delivery sequence it was sent for, and whether it is known committed. */
export interface EventMessage {
  event_id: string;
  mode: Mode;
  delivery_seq: number;
  committed?: boolean;
}

export interface DeliveryDependencies {
  events: EventRepository;
  links: LinkRepository;
  secrets: Pick<ApiKeyRepository, 'getSigningSecrets'>;
  sender: WebhookSender;
  /** The events queue: short retries are re-sent to it with a delay. */
  queue: EventQueue;
  /** Where an event that exhausted its retries is kept for operators. */
  deadLetters: EventQueue;
  now: () => Date;
  random: () => number;
  /** The retry schedule; the domain's unless a test compresses it. */
  schedule?: readonly number[];
}

/** How long a warm delivery function reuses an (account, mode)'s signing secrets before reading them again. */
export const SIGNING_SECRETS_CACHE_MS = 60_000;

/**
 * Signing secrets remembered per (account, mode) for `ttlMs`, so a busy delivery function reads them once a
 * minute rather than once per webhook; the records of one batch that need them together share one read. Safe
 * after a rotation: the previous secret keeps signing for 24 hours, so a minute of signing with it alone still
 * verifies at the merchant.
 */
export function cachedSigningSecrets(
  source: DeliveryDependencies['secrets'],
  now: () => Date,
  ttlMs = SIGNING_SECRETS_CACHE_MS,
): DeliveryDependencies['secrets'] {
  const cache = new Map<string, { secrets: Promise<string[]>; until: number }>();
  return {
    getSigningSecrets(account, mode, at) {
      const key = `${account}#${mode}`;
      const cached = cache.get(key);
      if (cached && cached.until > now().getTime()) return cached.secrets;
      const secrets = source.getSigningSecrets(account, mode, at);
      const entry = { secrets, until: now().getTime() + ttlMs };
      cache.set(key, entry);
      // A failed or empty read is not remembered: the next record asks the store again.
      const forget = () => {
        if (cache.get(key) === entry) cache.delete(key);
      };
      secrets.then((found) => {
        if (!found.length) forget();
      }, forget);
      return secrets;
    },
  };
}

export type DeliveryOutcome =
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  | 'skipped_missing'
  | 'skipped_stale'
  | 'skipped_duplicate'
  | 'skipped_orphan';

/**
 * The messages (event and sequence) this function instance is attempting right now. On AWS an instance handles
 * one invocation at a time, so this is what keeps two copies of a message in one batch from both posting (the
 * local stack runs its pollers in one process, so there it covers concurrent batches too).
 */
const attemptsInFlight = new Set<string>();

const eventKey = (message: EventMessage) => `${message.mode}#${message.event_id}`;

/** The stored events of a batch of messages, by message, read together. */
export type BatchEvents = ReadonlyMap<string, StoredEvent | undefined>;

/** Reads the events of a batch of queue messages with one request, instead of one read per record. */
export async function readBatchEvents(
  events: Pick<EventRepository, 'getMany'>,
  messages: readonly EventMessage[],
): Promise<BatchEvents> {
  const found = await events.getMany(
    messages.map((message) => ({ id: message.event_id, mode: message.mode })),
  );
  return new Map(messages.map((message, index) => [eventKey(message), found[index]]));
}

/**
 * Handles one queue message: makes at most one attempt to POST the event to its link's `webhook_url` and
 * records it. The event comes from `batch` (the batch's events, read together) or else is read here. Safe under
 * duplicates and races: a message for another sequence or a finished event is skipped, a copy of a message this
 * instance is already attempting is skipped, and only the first attempt to finish for a sequence changes the
 * event's state (copies of a message processed at the same moment by two instances may both post: at-least-once,
 * same `webhook-id`). Orphan events (no link names them: their transition never committed) leave the outbox
 * without any delivery.
 * Throws only on infrastructure failures (store, secret), so the record is retried.
 */
export async function deliverEvent(
  deps: DeliveryDependencies,
  message: EventMessage,
  batch?: BatchEvents,
): Promise<DeliveryOutcome> {
  const event = batch?.has(eventKey(message))
    ? batch.get(eventKey(message))
    : await deps.events.get(message.event_id, message.mode);
  if (!event) return 'skipped_missing';
  if (event.status !== 'pending' || event.delivery_seq !== message.delivery_seq) return 'skipped_stale';
  if (!message.committed) {
    const link = await deps.links.get(event.link_id, event.mode);
    if (!link?.event_ids.includes(event.id)) {
      await deps.events.dropFromOutbox(event);
      return 'skipped_orphan';
    }
  }
  const inFlight = `${eventKey(message)}#${event.delivery_seq}`;
  if (attemptsInFlight.has(inFlight)) return 'skipped_duplicate';
  attemptsInFlight.add(inFlight);
  try {
    return await attempt(deps, event);
  } finally {
    attemptsInFlight.delete(inFlight);
  }
}

async function attempt(deps: DeliveryDependencies, event: StoredEvent) {
  const url = eventLink(event).webhook_url;
  const at = deps.now();
  if (!url) {
    // Nothing to deliver to: the event is recorded and final, and the log says why.
    const note: DeliveryAttempt = {
      at: at.toISOString(),
      status_code: null,
      duration_ms: 0,
      error: 'The payment link has no webhook_url: nothing was sent.',
    };
    await deps.events.finish(event, note, { status: 'failed', reason: 'no_endpoint' }, at);
    return 'failed';
  }
  const secrets = await deps.secrets.getSigningSecrets(event.account, event.mode, at);
  if (!secrets.length) throw new Error(`No webhook secret for ${event.account}/${event.mode}.`);
  const body = webhookBody(event);
  const result = await deps.sender.send({
    mode: event.mode,
    url,
    body,
    headers: signedWebhookHeaders(secrets, event.id, body, at),
  });
  const record: DeliveryAttempt = {
    at: at.toISOString(),
    status_code: result.status_code,
    duration_ms: result.duration_ms,
    error: result.error,
  };
  const decision = decideAfterAttempt(result, event.round_attempts, {
    random: deps.random,
    schedule: deps.schedule,
  });
  const decidedAt = deps.now();
  const dueAt = nextDueTime(decision, decidedAt);
  const owned = await deps.events.finish(event, record, decision, dueAt);
  logger.info('webhook attempt', {
    event_id: event.id,
    status_code: result.status_code,
    error: result.error,
    decision: decision.status,
    owned,
  });
  if (!owned) return decision.status === 'pending' ? 'retry_scheduled' : decision.status;
  const next = { id: event.id, mode: event.mode, delivery_seq: event.delivery_seq + 1, committed: true };
  if (decision.status === 'pending' && decision.retryInMs <= MAX_QUEUE_DELAY_MS) {
    // A lost send is harmless: the outbox due time (the wait plus a grace period) brings the sweeper in.
    await deps.queue
      .publish(next, { delaySeconds: Math.ceil(decision.retryInMs / 1000) })
      .catch((error) =>
        logger.warn('Retry left to the outbox sweeper: send failed', { event_id: event.id, error }),
      );
  }
  if (decision.status === 'failed' && decision.reason === 'exhausted') {
    await deps.deadLetters
      .publish(next)
      .catch((error) =>
        logger.error('Failed event not copied to the dead-letter queue', { event_id: event.id, error }),
      );
  }
  return decision.status === 'pending' ? 'retry_scheduled' : decision.status;
}

/**
 * When the sweeper should hand a pending event to the queue. A short wait is re-sent to the queue with a delay,
 * so the outbox only backs it up (due a grace period later); a longer one than SQS can delay is the outbox's.
 */
function nextDueTime(decision: DeliveryDecision, now: Date): Date {
  if (decision.status !== 'pending') return now;
  const backup = decision.retryInMs <= MAX_QUEUE_DELAY_MS ? OUTBOX_GRACE_MS : 0;
  return new Date(now.getTime() + decision.retryInMs + backup);
}
