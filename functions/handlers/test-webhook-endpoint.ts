import { eventQueue, eventRepository, now, webhookEndpointRepository } from '../dependencies.ts';
import { WEBHOOK_TIMEOUT_MS } from '../domain/webhook.ts';
import { apiHandler, json } from '../http/api-handler.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { sendTestEvent } from '../use-cases/webhook-endpoints.ts';

/** Long enough for an attempt that takes the whole webhook timeout, with the queue's hand-over before it. */
const TEST_EVENT_WAIT_MS = WEBHOOK_TIMEOUT_MS + 3000;

/**
 * POST /v1/webhook-endpoints/{id}/test: the attempt's outcome, or `attempt: null` when none was made within the
 * wait (the endpoint is held back, or the queue is busy): the delivery goes on, `GET /v1/events/{id}` shows it.
 */
export const handler = apiHandler({ body: 'optional-json' }, async ({ principal, event, body }) => {
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
});
