import { eventQueue, eventRepository, linkRepository, now } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import type { RedeliveryResource } from '../http/api/resources.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { redeliverEvent } from '../use-cases/webhooks.ts';

/** POST /v1/events/{id}/redeliver */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    validate(emptyRequest(), body);
    const id = event.pathParameters?.id ?? '';
    await redeliverEvent(
      { links: linkRepository(), events: eventRepository(), queue: eventQueue(), now },
      principal,
      id,
    );
    return json(202, { id, status: 'pending' } satisfies RedeliveryResource);
  },
);
