import { NotFoundError } from '../domain/errors.ts';
import { eventConcernsPayment } from '../domain/link-events.ts';
import type { Principal } from '../domain/principal.ts';
import {
  type EventLogEntry,
  hasOwnDestination,
  isLinkEvent,
  OUTBOX_GRACE_MS,
  toEventLogEntry,
} from '../domain/webhook.ts';
import { logger } from '../logger.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import { getPaymentLink } from './link-transitions.ts';

export interface SweepDependencies {
  events: EventRepository;
  queue: EventQueue;
  now: () => Date;
}

/** At most this many events per run; the next run (a minute later) continues. */
export const SWEEP_BATCH = 500;

/**
 * The outbox sweeper: every event still undelivered whose due time has passed (a send that never happened, a
 * worker that died mid-attempt, a retry longer than a queue delay) is handed to the queue again. Its due time
 * moves a grace period ahead first, conditionally, so concurrent sweeps queue it once and a failed send is
 * simply picked up again later.
 */
export async function sweepOutbox(deps: SweepDependencies): Promise<{ queued: number; failed: number }> {
  const now = deps.now();
  const due = await deps.events.dueEntries(now, SWEEP_BATCH);
  let queued = 0;
  let failed = 0;
  for (const entry of due) {
    if (!(await deps.events.postpone(entry, new Date(now.getTime() + OUTBOX_GRACE_MS)))) continue;
    try {
      await deps.queue.publish({
        id: entry.id,
        account: entry.account,
        mode: entry.mode,
        delivery_seq: entry.delivery_seq,
        endpoint_id: entry.endpoint_id,
        recovery: entry.recovery,
      });
      queued++;
    } catch (error) {
      failed++;
      logger.warn('Outbox entry stays due: send failed', { event_id: entry.id, error });
    }
  }
  if (due.length) logger.info('outbox sweep', { due: due.length, queued, failed });
  return { queued, failed };
}

export interface EventLogDependencies {
  links: LinkRepository;
  events: EventRepository;
  now: () => Date;
}

/**
 * The delivery log of the caller's link: its committed events (orphans never show), oldest first; with
 * `paymentId`, only those about that payment (`eventConcernsPayment`), for the payment's timeline.
 */
export async function listLinkEvents(
  deps: EventLogDependencies,
  principal: Principal,
  linkId: string,
  paymentId?: string,
): Promise<EventLogEntry[]> {
  const link = await getPaymentLink(deps, principal, linkId);
  // The link names its events, oldest first: strongly consistent reads by id, so an event shows the moment its
  // transition commits (an index would lag), and an orphan never shows.
  const events = await deps.events.getMany(link.event_ids.map((id) => ({ id, mode: link.mode })));
  return events
    .filter((event) => event !== undefined && isLinkEvent(event))
    .filter((event) => paymentId === undefined || eventConcernsPayment(event, paymentId))
    .map(toEventLogEntry);
}

/**
 * Queues the caller's event again with the same `webhook-id`, whatever its status, starting the retry schedule
 * afresh: to its link's `webhook_url` and to every webhook endpoint it went to, or to the one recipient `only`
 * names (an endpoint's id; null: the link's `webhook_url`), as the console's per-recipient button asks. Another
 * tenant's event, an orphan, or a recipient the event never went to is `not_found`.
 */
export async function redeliverEvent(
  deps: EventLogDependencies & { queue: EventQueue },
  principal: Principal,
  eventId: string,
  only?: { endpointId: string | null },
): Promise<void> {
  const found = await deps.events.withDeliveries(eventId, principal.mode);
  const event = found?.event.account === principal.account ? found.event : undefined;
  if (!found || !event) throw new NotFoundError(`No event ${eventId}.`);
  if (isLinkEvent(event)) {
    const link = await deps.links.get(event.link_id, event.mode);
    if (!link?.event_ids.includes(event.id)) throw new NotFoundError(`No event ${eventId}.`);
  }
  const due = new Date(deps.now().getTime() + OUTBOX_GRACE_MS);
  const targets = [
    ...(hasOwnDestination(event) ? [undefined] : []),
    ...found.deliveries.map((delivery) => delivery.endpoint_id),
  ].filter((target) => !only || (target ?? null) === only.endpointId);
  if (!targets.length) throw new NotFoundError(`No delivery of event ${eventId} to that recipient.`);
  for (const endpointId of targets) {
    const restarted = await deps.events.restart(event.id, event.mode, due, endpointId);
    if (!restarted) continue;
    try {
      await deps.queue.publish({
        id: restarted.id,
        account: restarted.account,
        mode: restarted.mode,
        delivery_seq: restarted.delivery_seq,
        committed: true, // the link was checked above to name it
        endpoint_id: endpointId,
      });
    } catch (error) {
      logger.warn('Redelivery left to the outbox sweeper: send failed', { event_id: event.id, error });
    }
  }
}
