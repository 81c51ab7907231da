import { eventQueue, eventRepository, now } from '../dependencies.ts';
import { withLambdaContext } from '../logger.ts';
import { sweepOutbox } from '../use-cases/webhooks.ts';

/** Scheduled: queues again every undelivered event whose outbox due time has passed. */
export const handler = withLambdaContext(async () =>
  sweepOutbox({ events: eventRepository(), queue: eventQueue(), now }),
);
