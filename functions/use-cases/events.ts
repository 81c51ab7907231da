import { NotFoundError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { EVENT_RETENTION_MS, ownWebhookUrl, type StoredEvent } from '../domain/webhook.ts';
import type { EventRepository } from '../ports/event-repository.ts';

/*
 * The events API (docs/webhooks.md#the-events-api): every event of the (account, mode) of the last 30 days, newest
 * first, so that a merchant can reconcile without webhooks at all, or catch up on what they missed.
 */

export interface EventsDependencies {
  events: Pick<EventRepository, 'feed' | 'withDeliveries' | 'getMany'>;
  now: () => Date;
}

export interface EventListQuery {
  type?: string | undefined;
  /** Only events created at or after this (RFC 3339). */
  createdGte?: string | undefined;
  linkId?: string | undefined;
  limit: number;
  /** The position after which the page starts (a cursor's). */
  before?: string | undefined;
}

/** The oldest creation time the events API still shows. */
const oldestShown = (now: Date) => new Date(now.getTime() - EVENT_RETENTION_MS).toISOString();

export async function listEvents(
  deps: EventsDependencies,
  principal: Principal,
  query: EventListQuery,
): Promise<{ events: StoredEvent[]; next: string | undefined }> {
  const oldest = oldestShown(deps.now());
  const asked = query.createdGte === undefined ? undefined : new Date(query.createdGte).toISOString();
  return deps.events.feed(principal.account, principal.mode, {
    from: asked !== undefined && asked > oldest ? asked : oldest,
    before: query.before,
    limit: query.limit,
    type: query.type,
    linkId: query.linkId,
  });
}

/**
 * One event of the caller's, with each of its deliveries: to its link's `webhook_url` (a link's event, when the
 * link has one) and to each webhook endpoint it went to. Another tenant's, or one past the 30 days, is `not_found`.
 */
export async function getEvent(
  deps: EventsDependencies,
  principal: Principal,
  id: string,
): Promise<{ event: StoredEvent; deliveries: StoredEvent[] }> {
  const found = await deps.events.withDeliveries(id, principal.mode);
  if (
    !found ||
    found.event.account !== principal.account ||
    found.event.created_at < oldestShown(deps.now())
  ) {
    throw new NotFoundError(`No event ${id}.`);
  }
  return {
    event: found.event,
    // A link without `webhook_url` has nothing to show for it (its own log says so: nothing was sent).
    deliveries: [...(ownWebhookUrl(found.event) ? [found.event] : []), ...found.deliveries],
  };
}

/** An event with its deliveries to webhook endpoints, the event itself being the delivery to its link's URL. */
export interface EventDeliveries {
  event: StoredEvent;
  deliveries: StoredEvent[];
}

/**
 * The tenant's latest events (as `listEvents`), each with every delivery to a webhook endpoint: one query of
 * the event's own partition per event, so the console shows each recipient of each event.
 */
export async function listEventsWithDeliveries(
  deps: EventsDependencies,
  principal: Principal,
  query: EventListQuery,
): Promise<EventDeliveries[]> {
  const { events } = await listEvents(deps, principal, query);
  const found = await Promise.all(events.map((event) => deps.events.withDeliveries(event.id, event.mode)));
  return found.filter((entry): entry is EventDeliveries => entry !== undefined);
}

/**
 * One webhook endpoint's deliveries among the tenant's latest `limit` events, newest first: one page of the
 * feed and one batch of reads by key (event, endpoint), never a scan.
 */
export async function listEndpointDeliveries(
  deps: EventsDependencies,
  principal: Principal,
  endpointId: string,
  limit: number,
): Promise<StoredEvent[]> {
  const { events } = await listEvents(deps, principal, { limit });
  const deliveries = await deps.events.getMany(
    events.map((event) => ({ id: event.id, mode: event.mode, endpoint_id: endpointId })),
  );
  return deliveries.filter((delivery): delivery is StoredEvent => delivery !== undefined);
}
