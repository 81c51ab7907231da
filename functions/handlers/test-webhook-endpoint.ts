import { eventQueue, eventRepository, now, webhookEndpointRepository } from '../dependencies.ts';
import { TEST_EVENT_WAIT_MS } from '../domain/webhook-endpoint.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { sendTestEvent } from '../use-cases/webhook-endpoints.ts';

/**
 * POST /v1/webhook-endpoints/{id}/test: the attempt's outcome (a test attempt times out after 5 s), or
 * `attempt: null` when none was made within the wait (the endpoint is held back, or the queue is busy): the
 * delivery goes on, `GET /v1/events/{id}` shows it. 409 while another test of the endpoint is under way.
 */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    validate(emptyRequest(), body);
    const outcome = await sendTestEvent(
      {
        endpoints: webhookEndpointRepository(),
        events: eventRepository(),
        queue: eventQueue(),
        now,
        waitMs: TEST_EVENT_WAIT_MS,
      },
      principal,
      event.pathParameters?.id ?? '',
    );
    return json(200, outcome);
  },
);
