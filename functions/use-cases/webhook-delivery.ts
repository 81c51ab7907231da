import {
  type Admission,
  admit,
  type EndpointHealth,
  type EndpointRef,
  endpointAnswered,
  endpointKey,
  endpointOf,
  ISOLATION,
  type IsolationSettings,
  needsRenewal,
  probePauseUntil,
} from '../domain/endpoint-health.ts';
import { newId } from '../domain/ids.ts';
import { eventLink } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import {
  type AttemptResult,
  type DeliveryAttempt,
  type DeliveryDecision,
  decideAfterAttempt,
  type EndpointEvent,
  isLinkEvent,
  MAX_QUEUE_DELAY_MS,
  OUTBOX_GRACE_MS,
  type StoredEvent,
  webhookBody,
} from '../domain/webhook.ts';
import {
  endpointSecretContext,
  endpointSnapshot,
  failingTooLong,
  secretsInForce,
  subscribes,
  TEST_EVENT_TIMEOUT_MS,
} from '../domain/webhook-endpoint.ts';
import { signedWebhookHeaders } from '../domain/webhook-signature.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EndpointHealthStore } from '../ports/endpoint-health.ts';
import type { EndpointRecoveryStore } from '../ports/endpoint-recoveries.ts';
import type { EventQueue, EventReference } from '../ports/event-queue.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { SecretCipher } from '../ports/secret-cipher.ts';
import type { SigningSecretStore } from '../ports/signing-secret-store.ts';
import type { StoredWebhookEndpoint, WebhookEndpointRepository } from '../ports/webhook-endpoints.ts';
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
  /** The event's delivery to this webhook endpoint; absent: the event's own, to its link's `webhook_url`. */
  endpoint_id?: string | undefined;
}

/**
 * The tenant's webhook endpoints as delivery sees them: for a fan-out, as read since its batch began (after the
 * event was committed, so an endpoint created before the event gets it); for an attempt, as read within
 * `ENDPOINTS_CACHE_MS`; their secrets opened.
 */
export interface EndpointDirectory {
  /** Every endpoint of the tenant, as read at `readSince` (epoch ms) or later; by default within the cache time. */
  endpointsOf(account: string, mode: Mode, readSince?: number): Promise<StoredWebhookEndpoint[]>;
  /** The secrets a webhook to `endpoint` is signed with at `at`: the current one, and the previous during an overlap. */
  secretsOf(endpoint: StoredWebhookEndpoint, at: Date): Promise<string[]>;
}

/** How long an attempt trusts this container's copy of a tenant's endpoints (URL, status, secrets). */
export const ENDPOINTS_CACHE_MS = 1000;

/** The endpoints of each tenant, remembered for `ttlMs`, and their secrets opened once per sealed value. */
export function cachedEndpointDirectory(
  repository: Pick<WebhookEndpointRepository, 'list'>,
  cipher: Pick<SecretCipher, 'decrypt'>,
  now: () => Date,
  ttlMs = ENDPOINTS_CACHE_MS,
): EndpointDirectory {
  const endpoints = new Map<string, { list: Promise<StoredWebhookEndpoint[]>; at: number }>();
  const opened = new Map<string, Promise<string>>();
  const open = (endpoint: StoredWebhookEndpoint, sealed: string) => {
    let secret = opened.get(sealed);
    if (!secret) {
      secret = cipher.decrypt(sealed, endpointSecretContext(endpoint));
      secret.catch(() => opened.delete(sealed));
      if (opened.size > 1000) opened.clear();
      opened.set(sealed, secret);
    }
    return secret;
  };
  return {
    endpointsOf(account, mode, readSince = now().getTime() - ttlMs) {
      const key = `${account}#${mode}`;
      const cached = endpoints.get(key);
      if (cached && cached.at >= readSince) return cached.list;
      const list = repository.list(account, mode);
      const entry = { list, at: now().getTime() };
      endpoints.set(key, entry);
      list.catch(() => endpoints.get(key) === entry && endpoints.delete(key));
      return list;
    },
    async secretsOf(endpoint, at) {
      const { secret, previous_secret, previous_until } = endpoint.sealed;
      return secretsInForce(
        {
          secret: await open(endpoint, secret),
          previous_secret: previous_secret === undefined ? undefined : await open(endpoint, previous_secret),
          previous_until,
        },
        at,
      );
    },
  };
}

export interface DeliveryDependencies {
  events: EventRepository;
  links: LinkRepository;
  secrets: Pick<SigningSecretStore, 'getSigningSecrets'>;
  sender: WebhookSender;
  /** The events queue: short retries are re-sent to it with a delay. */
  queue: EventQueue;
  /** Where an event that exhausted its retries is kept for operators. */
  deadLetters: EventQueue;
  now: () => Date;
  random: () => number;
  /** The retry schedule; the domain's unless a test compresses it. */
  schedule?: readonly number[];
  /** The shared health of merchants' endpoints, which keeps one tenant's failing endpoint from holding others. */
  endpoints: EndpointHealthStore;
  /** Isolation settings; the domain's unless a test compresses them. */
  isolation?: IsolationSettings;
  /** The merchants' webhook endpoints: whom an event fans out to, and where each delivery goes. */
  webhookEndpoints: EndpointDirectory;
  /** Recoveries of endpoints, carried on by their own messages on the same queue (functions/use-cases/recovery.ts). */
  recoveries: EndpointRecoveryStore;
  /** Each webhook endpoint's latest outcomes (its health), and the disabling of one that keeps failing. */
  endpointStats: Pick<WebhookEndpointRepository, 'recordAttempt' | 'disableFailing'>;
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
  | 'skipped_orphan'
  | 'deferred';

/**
 * The messages (event and sequence) this function instance is attempting right now. On AWS an instance handles
 * one invocation at a time, so this is what keeps two copies of a message in one batch from both posting (the
 * local stack runs its pollers in one process, so there it covers concurrent batches too).
 */
const attemptsInFlight = new Set<string>();

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
  if (!message.committed && !event.endpoint_id && isLinkEvent(event)) {
    const link = await deps.links.get(event.link_id, event.mode);
    if (!link?.event_ids.includes(event.id)) {
      await deps.events.dropFromOutbox(event);
      return 'skipped_orphan';
    }
  }
  if (!event.endpoint_id && !event.fanned_out) await fanOut(deps, event, invocation);
  const inFlight = `${eventKey(message)}#${event.delivery_seq}`;
  if (attemptsInFlight.has(inFlight)) return 'skipped_duplicate';
  attemptsInFlight.add(inFlight);
  try {
    return await attempt(deps, event, invocation);
  } finally {
    attemptsInFlight.delete(inFlight);
  }
}

/**
 * Where the event goes: its link's `webhook_url`, signed with the account-mode's secret, or the endpoint of its
 * delivery, signed with that endpoint's secret(s). A string says why there is nowhere to send it.
 */
type Destination = { url: string; secrets: (at: Date) => Promise<string[]> } | string;

async function destinationOf(deps: DeliveryDependencies, event: StoredEvent): Promise<Destination> {
  if (event.endpoint_id) {
    const endpoints = await deps.webhookEndpoints.endpointsOf(event.account, event.mode);
    const endpoint = endpoints.find((candidate) => candidate.id === event.endpoint_id);
    if (!endpoint) return 'The webhook endpoint was deleted: nothing was sent.';
    if (endpoint.status !== 'enabled') return 'The webhook endpoint is disabled: nothing was sent.';
    return { url: endpoint.url, secrets: (at) => deps.webhookEndpoints.secretsOf(endpoint, at) };
  }
  const url = isLinkEvent(event) ? eventLink(event).webhook_url : null;
  if (!url) return 'The payment link has no webhook_url: nothing was sent.';
  return { url, secrets: (at) => deps.secrets.getSigningSecrets(event.account, event.mode, at) };
}

/**
 * Hands the event to each enabled webhook endpoint of its tenant that subscribes to its type: a delivery item
 * each (born in the outbox, so none is lost if what follows fails) and its first message. Then the event notes
 * it is fanned out; until then every handling of its message does this again, creating only what is missing.
 */
async function fanOut(deps: DeliveryDependencies, event: StoredEvent, invocation: Invocation): Promise<void> {
  const endpoints = await deps.webhookEndpoints.endpointsOf(event.account, event.mode, invocation.startedAt);
  const subscribed = endpoints.filter((endpoint) => subscribes(endpoint, event.type));
  if (subscribed.length) {
    const due = new Date(deps.now().getTime() + OUTBOX_GRACE_MS);
    const created = await deps.events.addDeliveries(
      event,
      subscribed.map((endpoint) => endpoint.id),
      due,
    );
    await Promise.all(
      created.map((endpointId) =>
        deps.queue.publish({ ...committedMessage(event, 0), endpoint_id: endpointId }).catch((error) =>
          logger.warn('Delivery left to the outbox sweeper: send failed', {
            event_id: event.id,
            endpoint_id: endpointId,
            error,
          }),
        ),
      ),
    );
  }
}

async function attempt(deps: DeliveryDependencies, event: StoredEvent, invocation: Invocation) {
  const destination = await destinationOf(deps, event);
  const at = deps.now();
  if (typeof destination === 'string') {
    // Nothing to deliver to: the event is recorded and final, and the log says why.
    const note: DeliveryAttempt = {
      at: at.toISOString(),
      status_code: null,
      duration_ms: 0,
      error: destination,
    };
    await deps.events.finish(event, note, { status: 'failed', reason: 'no_endpoint' }, at);
    return 'failed';
  }
  const { url } = destination;
  const endpoint = endpointOf(event.account, event.mode, url);
  const admission = await admitAttempt(deps, endpoint, invocation);
  if (admission.kind === 'defer') return defer(deps, event, admission.waitMs);
  let settled: () => void = () => undefined;
  invocation.attempts.set(endpointKey(endpoint), [
    ...(invocation.attempts.get(endpointKey(endpoint)) ?? []),
    new Promise<void>((resolve) => {
      settled = resolve;
    }),
  ]);
  let result: AttemptResult;
  try {
    const secrets = await destination.secrets(at);
    if (!secrets.length) throw new Error(`No webhook secret for ${event.account}/${event.mode}.`);
    const body = webhookBody(event);
    result = await watchedSend(deps, endpoint, admission, () =>
      deps.sender.send({
        mode: event.mode,
        url,
        body,
        headers: signedWebhookHeaders(secrets, event.id, body, at),
        ...(event.type === 'webhook_endpoint.test' && { timeoutMs: TEST_EVENT_TIMEOUT_MS }),
      }),
    );
    await recordEndpointAnswer(deps, endpoint, admission, result);
  } catch (error) {
    if (admission.kind === 'slot') await releaseSlot(deps, endpoint, admission);
    throw error;
  } finally {
    settled();
  }
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
  countAttempt(invocation, event, decision, decidedAt);
  const dueAt = nextDueTime(decision, decidedAt);
  const owned = await deps.events.finish(event, record, decision, dueAt);
  if (event.endpoint_id) await recordEndpointOutcome(deps, event, event.endpoint_id, result, decidedAt);
  // Every attempt is in the event's delivery log; the function's log carries at info level the ones an operator
  // may need to look into (not delivered, or overtaken by another attempt), a line per delivered webhook
  // only at debug level: writing it cost about a twentieth of delivery's CPU.
  const delivered = decision.status === 'delivered' && owned;
  logger[delivered ? 'debug' : 'info']('webhook attempt', {
    event_id: event.id,
    ...(event.endpoint_id && { endpoint_id: event.endpoint_id }),
    status_code: result.status_code,
    error: result.error,
    decision: decision.status,
    owned,
  });
  if (!owned) return decision.status === 'pending' ? 'retry_scheduled' : decision.status;
  const next = committedMessage(event, event.delivery_seq + 1);
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
 * Adds an attempt to its webhook endpoint's health (docs/webhooks.md#endpoint-health) and disables an endpoint
 * that has failed every attempt for 5 days: a log line, a metric, and a `webhook_endpoint.disabled` event to the
 * tenant's other endpoints that subscribe to it. A failure here is only logged: the attempt itself is recorded.
 */
async function recordEndpointOutcome(
  deps: DeliveryDependencies,
  event: StoredEvent,
  endpointId: string,
  result: AttemptResult,
  at: Date,
): Promise<void> {
  const ok = result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
  try {
    const stats = await deps.endpointStats.recordAttempt(event.account, event.mode, endpointId, {
      ok,
      durationMs: result.duration_ms,
      at,
    });
    if (ok || !stats?.failing_since || !failingTooLong(stats.failing_since, at)) return;
    const disabled = await deps.endpointStats.disableFailing(
      event.account,
      event.mode,
      endpointId,
      stats.failing_since,
      at,
    );
    if (!disabled) return; // already disabled, or answered meanwhile
    logger.error('Webhook endpoint disabled: every attempt failed for 5 days', {
      endpoint_id: endpointId,
      account: event.account,
      mode: event.mode,
      failing_since: stats.failing_since,
    });
    putMetrics({ WebhookEndpointsDisabled: 1 });
    const others = (await deps.webhookEndpoints.endpointsOf(event.account, event.mode, at.getTime())).filter(
      (endpoint) => endpoint.id !== endpointId && subscribes(endpoint, 'webhook_endpoint.disabled'),
    );
    const notice: EndpointEvent = {
      id: newId('evt'),
      type: 'webhook_endpoint.disabled',
      account: event.account,
      mode: event.mode,
      created_at: at.toISOString(),
      data: endpointSnapshot(disabled),
    };
    await deps.events.recordEndpointEvent(
      notice,
      others.map((endpoint) => endpoint.id),
      new Date(at.getTime() + OUTBOX_GRACE_MS),
    );
    for (const endpoint of others) {
      await deps.queue
        .publish({ ...notice, delivery_seq: 0, committed: true, endpoint_id: endpoint.id })
        .catch(() => undefined); // the outbox holds the delivery
    }
  } catch (error) {
    logger.warn('Webhook endpoint health not updated', { endpoint_id: endpointId, error });
  }
}

/** Counts one attempt in its batch's metrics; the latency is what the merchant waited, retries included. */
function countAttempt(invocation: Invocation, event: StoredEvent, decision: DeliveryDecision, at: Date) {
  invocation.metrics.attempts++;
  if (decision.status === 'delivered') {
    invocation.metrics.latencies.push(at.getTime() - Date.parse(event.created_at));
  }
}

/**
 * Emits a batch's attempt metrics as one Embedded Metric Format line (counts summed, one latency value per
 * delivered event), rather than a line per attempt: a tenth of the log volume and of the work of writing it.
 */
export function putInvocationMetrics(invocation: Invocation): void {
  const { attempts, latencies } = invocation.metrics;
  if (!attempts) return;
  putMetrics({
    WebhookAttempts: attempts,
    WebhookSuccesses: latencies.length,
    WebhookFailures: attempts - latencies.length,
    ...(latencies.length && { WebhookDeliveryLatency: latencies }),
  });
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

/*
 * Isolation (docs/webhooks.md, "Isolation"): an endpoint that has not proven healthy takes at most a few
 * attempts at once across all instances (slots leased in its shared health item), so a hanging endpoint holds
 * at most that many records, and its other events are deferred instead of filling every batch.
 */

/** What one invocation (one batch) knows beyond the shared health: its own attempts under way, per endpoint. */
export interface Invocation {
  /** Settles when each of this invocation's attempts to the endpoint has its answer recorded. */
  attempts: Map<string, Promise<void>[]>;
  /** Admissions to one endpoint are decided one after another, so records of a batch do not race for a slot. */
  admissions: Map<string, Promise<unknown>>;
  /** The batch's attempts so far, and the delivery latency of each that delivered its event. */
  metrics: { attempts: number; latencies: number[] };
  /** When the batch began (epoch ms): a fan-out reads the endpoints as they were then or later. */
  startedAt: number;
}

export const newInvocation = (now = Date.now()): Invocation => ({
  attempts: new Map(),
  admissions: new Map(),
  metrics: { attempts: 0, latencies: [] },
  startedAt: now,
});

/**
 * Reads the webhook endpoints of the batch's tenants whose events may need them (a fan-out, or a delivery to an
 * endpoint), one Query per tenant, so that the records find them read.
 */
export async function readBatchEndpoints(
  deps: DeliveryDependencies,
  events: Iterable<StoredEvent | undefined>,
  invocation: Invocation,
): Promise<void> {
  const tenants = new Map<string, StoredEvent>();
  for (const event of events) {
    if (event?.status === 'pending' && (event.endpoint_id || !event.fanned_out)) {
      tenants.set(`${event.account}#${event.mode}`, event);
    }
  }
  await Promise.all(
    [...tenants.values()].map((event) =>
      deps.webhookEndpoints.endpointsOf(event.account, event.mode, invocation.startedAt),
    ),
  );
}

/** What this container last read or wrote of each endpoint's health, and when. */
const healthCache = new Map<string, { health: EndpointHealth; at: number }>();

const settingsOf = (deps: DeliveryDependencies) => deps.isolation ?? ISOLATION;

function remember(endpoint: EndpointRef, health: EndpointHealth, at: number) {
  healthCache.set(endpointKey(endpoint), { health, at });
}

/**
 * Reads the health of the batch's endpoints that this container has not read within `cacheMs`, with one request,
 * so that its records decide from the cache.
 */
export async function readEndpointHealth(
  deps: DeliveryDependencies,
  events: Iterable<StoredEvent | undefined>,
): Promise<void> {
  const now = deps.now().getTime();
  const stale = new Map<string, EndpointRef>();
  for (const event of events) {
    if (event?.status !== 'pending') continue;
    const destination = await destinationOf(deps, event);
    if (typeof destination === 'string') continue;
    const { url } = destination;
    const endpoint = endpointOf(event.account, event.mode, url);
    const cached = healthCache.get(endpointKey(endpoint));
    if (!cached || now - cached.at >= settingsOf(deps).cacheMs) stale.set(endpointKey(endpoint), endpoint);
  }
  if (!stale.size) return;
  const endpoints = [...stale.values()];
  const healths = await deps.endpoints.getMany(endpoints);
  endpoints.forEach((endpoint, index) => {
    const health = healths[index];
    if (health) remember(endpoint, health, now);
  });
}

/** Reads of endpoint health under way in this container, so records needing the same one share it. */
const healthReads = new Map<string, Promise<EndpointHealth>>();

/** The endpoint's health as known at `notBefore` or later (by default: within `cacheMs`). */
async function currentHealth(
  deps: DeliveryDependencies,
  endpoint: EndpointRef,
  notBefore = deps.now().getTime() - settingsOf(deps).cacheMs,
): Promise<EndpointHealth> {
  const key = endpointKey(endpoint);
  const cached = healthCache.get(key);
  if (cached && cached.at >= notBefore && deps.now().getTime() - cached.at < settingsOf(deps).cacheMs) {
    return cached.health;
  }
  const pending = healthReads.get(key);
  if (pending) return pending;
  const startedAt = deps.now().getTime();
  const read = deps.endpoints
    .getMany([endpoint])
    .then(([health]) => {
      if (!health) throw new Error('The endpoint health store answered nothing.');
      remember(endpoint, health, startedAt);
      return health;
    })
    .finally(() => healthReads.delete(key));
  healthReads.set(key, read);
  return read;
}

type Admitted = { kind: 'free' } | { kind: 'slot'; slot: number; lease: number };
type Deferral = { kind: 'defer'; waitMs: number; recheckInMs?: number };

/**
 * Whether this event may be attempted now, taking a slot when the endpoint needs one. A record that finds no
 * slot waits once and asks again when an answer may be near: for this invocation's own attempt to the
 * endpoint (at most `localWaitMs`), or for another instance's begun less than `answerWithinMs` ago. A healthy
 * endpoint seen for the first time so proves itself within the batch instead of having its events deferred;
 * a hanging one costs a batch such a wait only in the first moments of its first attempts.
 */
async function admitAttempt(
  deps: DeliveryDependencies,
  endpoint: EndpointRef,
  invocation: Invocation,
): Promise<Admitted | Deferral> {
  const first = await decideInTurn(deps, endpoint, invocation);
  if (first.kind !== 'defer') return first;
  const settings = settingsOf(deps);
  const own = invocation.attempts.get(endpointKey(endpoint)) ?? [];
  if (!own.length && first.recheckInMs === undefined) return first;
  const waitMs = own.length ? settings.localWaitMs : (first.recheckInMs ?? 0);
  const waitedFrom = deps.now().getTime() + waitMs;
  await Promise.race([
    ...(own.length ? [Promise.all(own)] : []),
    new Promise((resolve) => setTimeout(resolve, waitMs)),
  ]);
  // Another instance's answer is only in the store: read it (once for all the records that waited).
  const second = await decideInTurn(deps, endpoint, invocation, own.length ? undefined : waitedFrom);
  return second.kind === 'defer' ? { kind: 'defer', waitMs: second.waitMs } : second;
}

/** One admission decision, after the previous one for the same endpoint in this invocation. */
function decideInTurn(
  deps: DeliveryDependencies,
  endpoint: EndpointRef,
  invocation: Invocation,
  notBefore?: number,
): Promise<Admitted | Deferral> {
  const key = endpointKey(endpoint);
  const decision = (invocation.admissions.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => decide(deps, endpoint, notBefore));
  invocation.admissions.set(key, decision);
  return decision;
}

async function decide(
  deps: DeliveryDependencies,
  endpoint: EndpointRef,
  notBefore?: number,
): Promise<Admitted | Deferral> {
  const settings = settingsOf(deps);
  const health = await currentHealth(deps, endpoint, notBefore);
  let admission: Admission = admit(health, deps.now().getTime(), deps.random, settings);
  // A slot another instance took since the health was read: read again and decide once more.
  for (let round = 0; admission.kind === 'slot' && round < 2; round++) {
    const now = deps.now().getTime();
    const lease = now + settings.slotLeaseMs;
    const claimed = await deps.endpoints.claimSlot(endpoint, admission.slot, lease, now);
    if (claimed) {
      remember(endpoint, claimed, now);
      return { kind: 'slot', slot: admission.slot, lease };
    }
    admission = admit(await currentHealth(deps, endpoint, now), now, deps.random, settings);
  }
  if (admission.kind === 'slot') return { kind: 'defer', waitMs: settings.deferBaseMs };
  return admission;
}

/**
 * Sends, and for an endpoint trusted as healthy watches the clock: an attempt unanswered for `slowAfterMs` ends
 * that trust at once, so every instance holds the endpoint to its slots before its attempts could fill batches.
 */
async function watchedSend(
  deps: DeliveryDependencies,
  endpoint: EndpointRef,
  admission: Admitted,
  send: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
  if (admission.kind !== 'free') return send();
  const slow = setTimeout(() => {
    deps.endpoints.markSlow(endpoint).then(
      (health) => health && remember(endpoint, health, deps.now().getTime()),
      (error) => logger.warn('Endpoint health not updated', { origin: endpoint.origin, error }),
    );
  }, settingsOf(deps).slowAfterMs);
  try {
    return await send();
  } finally {
    clearTimeout(slow);
  }
}

/**
 * Records what the attempt says about its endpoint and frees its slot. An answer from an endpoint already
 * trusted writes nothing (until its trust is half spent), so healthy delivery costs no extra write. A failure to
 * write is only logged: the slot's lease ends on its own, and the event's own state is recorded apart.
 */
async function recordEndpointAnswer(
  deps: DeliveryDependencies,
  endpoint: EndpointRef,
  admission: Admitted,
  result: AttemptResult,
): Promise<void> {
  const settings = settingsOf(deps);
  const now = deps.now().getTime();
  const answered = endpointAnswered(result);
  const known = healthCache.get(endpointKey(endpoint))?.health;
  if (admission.kind === 'free' && answered && known && !needsRenewal(known, now, settings)) return;
  try {
    const pauseUntil = answered ? undefined : probePauseUntil((known?.failures ?? 0) + 1, now, settings);
    const health = await deps.endpoints.recordAnswer(
      endpoint,
      answered,
      now + settings.healthyForMs,
      admission.kind === 'slot' ? { ...admission, pauseUntil } : undefined,
    );
    remember(endpoint, health, now);
  } catch (error) {
    logger.warn('Endpoint health not updated', { origin: endpoint.origin, error });
  }
}

/** Frees a slot whose attempt could not be made (store or secret unavailable): no verdict on the endpoint. */
async function releaseSlot(deps: DeliveryDependencies, endpoint: EndpointRef, admission: Admitted) {
  if (admission.kind !== 'slot') return;
  healthCache.delete(endpointKey(endpoint));
  await deps.endpoints
    .claimSlot(endpoint, admission.slot, 0, admission.lease)
    .catch((error) => logger.warn('Endpoint slot not freed', { origin: endpoint.origin, error }));
}

/**
 * Holds the event back for `waitMs` without an attempt: the schedule's position is kept, so it is never failed
 * for attempts it did not get. When the outbox would not queue the event before the message returns, the same
 * message is simply sent again, delayed (no write: holding back the many events of a failing endpoint stays
 * cheap). Otherwise, like a retry, the next sequence is recorded with a later due time, and a wait a queue
 * delay covers is re-sent while a longer one is the outbox's.
 */
async function defer(
  deps: DeliveryDependencies,
  event: StoredEvent,
  waitMs: number,
): Promise<DeliveryOutcome> {
  const now = deps.now();
  const returnsAt = now.getTime() + waitMs;
  const due = event.outbox_due ? Date.parse(event.outbox_due) : Number.NaN;
  if (waitMs <= MAX_QUEUE_DELAY_MS && due - returnsAt >= OUTBOX_MARGIN_MS) {
    await deps.queue.publish(committedMessage(event, event.delivery_seq), {
      delaySeconds: Math.ceil(waitMs / 1000),
    });
    return 'deferred';
  }
  const wait: DeliveryDecision = { status: 'pending', retryInMs: waitMs };
  if (!(await deps.events.defer(event, nextDueTime(wait, now)))) return 'skipped_stale';
  if (waitMs <= MAX_QUEUE_DELAY_MS) {
    await deps.queue
      .publish(committedMessage(event, event.delivery_seq + 1), { delaySeconds: Math.ceil(waitMs / 1000) })
      .catch((error) =>
        logger.warn('Deferred event left to the outbox sweeper: send failed', { event_id: event.id, error }),
      );
  }
  return 'deferred';
}

/** The queue message of `event` for sequence `deliverySeq`: delivery read the event, so it is committed. */
const committedMessage = (event: StoredEvent, deliverySeq: number): EventReference => ({
  id: event.id,
  account: event.account,
  mode: event.mode,
  delivery_seq: deliverySeq,
  committed: true,
  ...(event.endpoint_id && { endpoint_id: event.endpoint_id }),
});

/** How long before the outbox due time a re-sent message must return, so that the sweeper never doubles it. */
const OUTBOX_MARGIN_MS = 30_000;
