import { eventRepository, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toEventWithDeliveries } from '../http/api/endpoint-resources.ts';
import { getEvent } from '../use-cases/events.ts';

/** GET /v1/events/{id}: the event and the delivery log of each of its destinations. */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const found = await getEvent({ events: eventRepository(), now }, principal, event.pathParameters?.id ?? '');
  return json(200, toEventWithDeliveries(found.event, found.deliveries));
});
