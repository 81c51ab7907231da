import { endpointOf } from '../domain/endpoint-health.ts';
import { newId } from '../domain/ids.ts';
import {
  type AttemptResult,
  type DeliveryAttempt,
  type DeliveryDecision,
  decideAfterAttempt,
  type EndpointEvent,
  MAX_QUEUE_DELAY_MS,
  OUTBOX_GRACE_MS,
  type StoredEvent,
  webhookBody,
} from '../domain/webhook.ts';
import {
  endpointSnapshot,
  failingTooLong,
  subscribes,
  TEST_EVENT_TIMEOUT_MS,
} from '../domain/webhook-endpoint.ts';
import { signedWebhookHeaders } from '../domain/webhook-signature.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { WebhookEndpointRepository } from '../ports/webhook-endpoints.ts';
import type { WebhookSender } from '../ports/webhook-sender.ts';
import {
  admitAttempt,
  type IsolationDependencies,
  recordEndpointAnswer,
  releaseSlot,
  trackAttempt,
  watchedSend,
} from './endpoint-isolation.ts';
import { committedMessage, destinationOf, type FanOutDependencies } from './webhook-fan-out.ts';
import { countAttempt, type Invocation } from './webhook-invocation.ts';

/*
 * One attempt (docs/webhooks.md, "Duplicates and races", "Retries"): send the event to where it goes, once its
 * endpoint admits it, and record the attempt and what it decides (delivered, a retry, failed) with one
 * conditional write; or hold the event back without an attempt when its endpoint may not take one now.
 */

export type DeliveryOutcome =
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  | 'skipped_missing'
  | 'skipped_stale'
  | 'skipped_duplicate'
  | 'skipped_orphan'
  | 'deferred';

export interface AttemptDependencies extends IsolationDependencies, FanOutDependencies {
  sender: WebhookSender;
  /** Where an event that exhausted its retries is kept for operators. */
  deadLetters: EventQueue;
  /** The retry schedule; the domain's unless a test compresses it. */
  schedule?: readonly number[];
  /** Each webhook endpoint's latest outcomes (its health), and the disabling of one that keeps failing. */
  endpointStats: Pick<WebhookEndpointRepository, 'recordAttempt' | 'disableFailing'>;
}

/**
 * Makes at most one attempt to deliver `event` (pending, at the sequence of its message) and records it; or
 * defers it when its endpoint may not take an attempt now. Throws only on infrastructure failures.
 */
export async function attempt(
  deps: AttemptDependencies,
  event: StoredEvent,
  invocation: Invocation,
): Promise<DeliveryOutcome> {
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
  const endpoint = endpointOf(event.account, event.mode, destination.url);
  const admission = await admitAttempt(deps, endpoint, invocation);
  if (admission.kind === 'defer') return defer(deps, event, admission.waitMs);
  const settled = trackAttempt(invocation, endpoint);
  let result: AttemptResult;
  try {
    const secrets = await destination.secrets(at);
    if (!secrets.length) throw new Error(`No webhook secret for ${event.account}/${event.mode}.`);
    result = await watchedSend(deps, endpoint, admission, () =>
      post(deps, event, destination.url, secrets, at),
    );
    await recordEndpointAnswer(deps, endpoint, admission, result);
  } catch (error) {
    await releaseSlot(deps, endpoint, admission);
    throw error;
  } finally {
    settled();
  }
  return recordAttempt(deps, event, invocation, at, result);
}

/** Signs the event with `secrets` and posts it to `url`. */
function post(
  deps: AttemptDependencies,
  event: StoredEvent,
  url: string,
  secrets: string[],
  at: Date,
): Promise<AttemptResult> {
  const body = webhookBody(event);
  return deps.sender.send({
    mode: event.mode,
    url,
    body,
    headers: signedWebhookHeaders(secrets, event.id, body, at),
    ...(event.type === 'webhook_endpoint.test' && { timeoutMs: TEST_EVENT_TIMEOUT_MS }),
  });
}

/**
 * Records the attempt and its decision with one write conditioned on the event's sequence, then sends the
 * retry's message (a wait a queue delay covers) or the dead-letter copy (retries exhausted). An attempt
 * overtaken by another (the write found the sequence moved on) is only logged.
 */
async function recordAttempt(
  deps: AttemptDependencies,
  event: StoredEvent,
  invocation: Invocation,
  at: Date,
  result: AttemptResult,
): Promise<DeliveryOutcome> {
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
  const owned = await deps.events.finish(event, record, decision, nextDueTime(decision, decidedAt));
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
  if (owned) await sendFollowUp(deps, event, decision);
  return decision.status === 'pending' ? 'retry_scheduled' : decision.status;
}

/** The message that follows a recorded decision: a delayed retry, or a copy for the dead-letter queue. */
async function sendFollowUp(deps: AttemptDependencies, event: StoredEvent, decision: DeliveryDecision) {
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
}

/**
 * Adds an attempt to its webhook endpoint's health (docs/webhooks.md#endpoint-health) and disables an endpoint
 * that has failed every attempt for 5 days. A failure here is only logged: the attempt itself is recorded.
 */
async function recordEndpointOutcome(
  deps: AttemptDependencies,
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
    await announceDisabled(deps, event, endpointId, endpointSnapshot(disabled), at);
  } catch (error) {
    logger.warn('Webhook endpoint health not updated', { endpoint_id: endpointId, error });
  }
}

/** A `webhook_endpoint.disabled` event to the tenant's other endpoints that subscribe to it. */
async function announceDisabled(
  deps: AttemptDependencies,
  event: StoredEvent,
  endpointId: string,
  data: EndpointEvent['data'],
  at: Date,
): Promise<void> {
  const others = (await deps.webhookEndpoints.endpointsOf(event.account, event.mode, at.getTime())).filter(
    (endpoint) => endpoint.id !== endpointId && subscribes(endpoint, 'webhook_endpoint.disabled'),
  );
  const notice: EndpointEvent = {
    id: newId('evt'),
    type: 'webhook_endpoint.disabled',
    account: event.account,
    mode: event.mode,
    created_at: at.toISOString(),
    data,
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

/** How long before the outbox due time a re-sent message must return, so that the sweeper never doubles it. */
const OUTBOX_MARGIN_MS = 30_000;

/**
 * Holds the event back for `waitMs` without an attempt: the schedule's position is kept, so it is never failed
 * for attempts it did not get. When the outbox would not queue the event before the message returns, the same
 * message is simply sent again, delayed (no write: holding back the many events of a failing endpoint stays
 * cheap). Otherwise, like a retry, the next sequence is recorded with a later due time, and a wait a queue
 * delay covers is re-sent while a longer one is the outbox's.
 */
async function defer(
  deps: AttemptDependencies,
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
