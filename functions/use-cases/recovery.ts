import { InvalidStateError } from '../domain/errors.ts';
import type { Mode, Principal } from '../domain/principal.ts';
import { OUTBOX_GRACE_MS, type StoredEvent } from '../domain/webhook.ts';
import { subscribes } from '../domain/webhook-endpoint.ts';
import { logger } from '../logger.ts';
import type { EndpointRecoveryStore, Recovery } from '../ports/endpoint-recoveries.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { StoredWebhookEndpoint } from '../ports/webhook-endpoints.ts';
import type { EndpointDependencies } from './webhook-endpoints.ts';
import { getWebhookEndpoint } from './webhook-endpoints.ts';
import type { EndpointDirectory } from './webhook-fan-out.ts';

/*
 * Recovery (docs/webhooks.md#recovery): after an outage, a merchant asks for every event since a moment that an
 * endpoint never acknowledged. The work goes through the events queue a page at a time, as messages of the
 * merchant's own tenant, so the fair queue keeps it from delaying other merchants' webhooks, and each event is
 * handed to delivery as any webhook is (same `webhook-id`, schedule, isolation, attempts log).
 */

/** Events one step of a recovery reads from the feed: one queue message, a bounded amount of work. */
export const RECOVERY_PAGE = 25;

/** A message that carries a recovery on: the endpoint, its tenant, and the step it was sent for. */
export interface RecoveryMessage {
  recovery_of: string;
  account: string;
  mode: Mode;
  delivery_seq: number;
}

export interface StartRecoveryDependencies extends EndpointDependencies {
  recoveries: Pick<EndpointRecoveryStore, 'start'>;
  queue: EventQueue;
}

/**
 * Starts a recovery of the caller's endpoint from `since` (RFC 3339, within the events API's 30 days): at most
 * one runs per endpoint (`409 invalid_state` while one does), and a disabled endpoint is refused.
 */
export async function startRecovery(
  deps: StartRecoveryDependencies,
  principal: Principal,
  endpointId: string,
  since: string,
): Promise<Recovery> {
  const endpoint = await getWebhookEndpoint(deps, principal, endpointId);
  if (endpoint.status !== 'enabled') {
    throw new InvalidStateError('The webhook endpoint is disabled: enable it, then recover.');
  }
  const now = deps.now();
  const recovery: Recovery = {
    endpoint_id: endpoint.id,
    account: principal.account,
    mode: principal.mode,
    since: new Date(since).toISOString(),
    status: 'running',
    step: 0,
    queued: 0,
    started_at: now.toISOString(),
  };
  if (!(await deps.recoveries.start(recovery, new Date(now.getTime() + OUTBOX_GRACE_MS)))) {
    throw new InvalidStateError('A recovery of this webhook endpoint is still running.');
  }
  // A lost send only delays it: the running recovery is in the outbox.
  await deps.queue
    .publish(recoveryMessage(recovery))
    .catch((error) =>
      logger.warn('Recovery left to the outbox sweeper: send failed', { endpoint_id: endpoint.id, error }),
    );
  return recovery;
}

const recoveryMessage = (recovery: Recovery) => ({
  id: recovery.endpoint_id,
  account: recovery.account,
  mode: recovery.mode,
  delivery_seq: recovery.step,
  recovery: true,
});

export interface RecoveryStepDependencies {
  events: Pick<EventRepository, 'feedSince' | 'getMany' | 'addDeliveries' | 'restart'>;
  recoveries: EndpointRecoveryStore;
  webhookEndpoints: EndpointDirectory;
  queue: EventQueue;
  now: () => Date;
}

export type RecoveryOutcome = 'recovered_page' | 'recovery_done' | 'skipped_stale';

/**
 * One step of a recovery: claims the step (a duplicate message finds it claimed), reads the next page of the
 * tenant's events, oldest first, and hands each one the endpoint subscribes to and never acknowledged to
 * delivery again: a delivery that exists starts a new round (same `webhook-id`; its pending retry becomes stale,
 * so nothing is sent twice by it), a missing one (the endpoint was disabled then, or did not exist yet) is
 * created. Events still being fanned out are left to their fan-out. Then the cursor moves on and the next step is
 * queued, or the recovery ends. A step that dies half way is brought back by the outbox and redone from the
 * same cursor: at least once.
 */
export async function recoverStep(
  deps: RecoveryStepDependencies,
  message: RecoveryMessage,
  readSince: number,
): Promise<RecoveryOutcome> {
  const recovery = await deps.recoveries.get(message.account, message.mode, message.recovery_of);
  if (recovery?.status !== 'running' || recovery.step !== message.delivery_seq) return 'skipped_stale';
  const due = new Date(deps.now().getTime() + OUTBOX_GRACE_MS);
  if (!(await deps.recoveries.claim(recovery, due))) return 'skipped_stale';
  const claimed: Recovery = { ...recovery, step: recovery.step + 1 };
  const endpoints = await deps.webhookEndpoints.endpointsOf(recovery.account, recovery.mode, readSince);
  const endpoint = endpoints.find((candidate) => candidate.id === recovery.endpoint_id);
  if (endpoint?.status !== 'enabled') {
    await deps.recoveries.progress(claimed, {
      cursor: undefined,
      queued: recovery.queued,
      done: true,
      at: deps.now(),
    });
    return 'recovery_done';
  }
  const page = await deps.events.feedSince(
    recovery.account,
    recovery.mode,
    recovery.since,
    recovery.cursor,
    RECOVERY_PAGE,
  );
  const queued = recovery.queued + (await redeliverPage(deps, endpoint, page.events, due));
  const last = page.events.at(-1);
  const done = page.next === undefined;
  const cursor = last ? `${last.created_at}#${last.id}` : recovery.cursor;
  if (!(await deps.recoveries.progress(claimed, { cursor, queued, done, at: deps.now() })))
    return 'skipped_stale';
  if (done) {
    logger.info('webhook endpoint recovered', { endpoint_id: endpoint.id, queued });
    return 'recovery_done';
  }
  await deps.queue.publish(recoveryMessage({ ...claimed, cursor })).catch((error) =>
    logger.warn('Recovery step left to the outbox sweeper: send failed', {
      endpoint_id: endpoint.id,
      error,
    }),
  );
  return 'recovered_page';
}

/**
 * Hands each event of the page that `endpoint` subscribes to and never acknowledged to delivery again, due at
 * `due`; the number queued.
 */
async function redeliverPage(
  deps: RecoveryStepDependencies,
  endpoint: StoredWebhookEndpoint,
  events: readonly StoredEvent[],
  due: Date,
): Promise<number> {
  const wanted = events.filter(
    (event) => event.fanned_out && event.type !== 'webhook_endpoint.test' && subscribes(endpoint, event.type),
  );
  const deliveries = await deps.events.getMany(
    wanted.map((event) => ({ id: event.id, mode: event.mode, endpoint_id: endpoint.id })),
  );
  let queued = 0;
  for (const [index, event] of wanted.entries()) {
    if (await redeliver(deps, event, deliveries[index], endpoint.id, due)) queued++;
  }
  return queued;
}

/**
 * Starts a new round of the event's `delivery` to the endpoint, or creates the delivery it never had, and queues
 * it; false when there is nothing to send (delivered, or created meanwhile by the event's fan-out, which queued it).
 */
async function redeliver(
  deps: RecoveryStepDependencies,
  event: StoredEvent,
  delivery: StoredEvent | undefined,
  endpointId: string,
  due: Date,
): Promise<boolean> {
  if (delivery?.status === 'delivered') return false;
  let seq: number | undefined;
  if (delivery) seq = (await deps.events.restart(event.id, event.mode, due, endpointId))?.delivery_seq;
  else if ((await deps.events.addDeliveries(event, [endpointId], due)).length) seq = 0;
  if (seq === undefined) return false;
  await deps.queue
    .publish({
      id: event.id,
      account: event.account,
      mode: event.mode,
      delivery_seq: seq,
      committed: true,
      endpoint_id: endpointId,
    })
    .catch((error) =>
      logger.warn('Recovered delivery left to the outbox sweeper: send failed', {
        event_id: event.id,
        error,
      }),
    );
  return true;
}
