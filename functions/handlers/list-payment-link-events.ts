import { eventRepository, linkRepository, now } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import type { EventLogResource } from '../http/api/resources.ts';
import { listLinkEvents } from '../use-cases/webhooks.ts';

/** GET /v1/payment-links/{id}/events */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const data = await listLinkEvents(
    { links: linkRepository(), events: eventRepository(), now },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, { data } satisfies EventLogResource);
});
