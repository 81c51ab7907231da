import { eventRepository, now } from '../dependencies.ts';
import { ValidationError } from '../domain/errors.ts';
import { decodeCursor, encodeCursor } from '../domain/page-cursor.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { type EventListResource, toEventResource } from '../http/api/endpoint-resources.ts';
import { listEventsQuery } from '../http/api/events-query.ts';
import { validate } from '../http/validate.ts';
import { listEvents } from '../use-cases/events.ts';

/** GET /v1/events?type=&created[gte]=&link=&limit=&cursor= */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listEventsQuery(), event.queryStringParameters ?? {});
  const before = query.cursor === undefined ? undefined : decodeCursor(principal, query.cursor, 'evt');
  if (query.cursor !== undefined && before === undefined) {
    throw new ValidationError([
      { pointer: '/cursor', detail: 'Not a cursor this API key was given: pass `next_cursor` unchanged.' },
    ]);
  }
  const page = await listEvents({ events: eventRepository(), now }, principal, {
    type: query.type,
    createdGte: query['created[gte]'],
    linkId: query.link,
    limit: query.limit,
    before,
  });
  return json(200, {
    data: page.events.map(toEventResource),
    next_cursor: page.next ? encodeCursor(principal, page.next) : null,
  } satisfies EventListResource);
});
