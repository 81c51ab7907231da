import { z } from 'zod';
import {
  apiKeyRepository,
  deadLetterQueue,
  eventQueue,
  eventRepository,
  linkRepository,
  now,
  webhookSender,
} from '../dependencies.ts';
import { sqsBatchHandler } from '../sqs/batch-handler.ts';
import { type DeliveryDependencies, deliverEvent } from '../use-cases/webhooks.ts';

const EventMessageSchema = z.object({
  event_id: z.string().min(1),
  mode: z.enum(['test', 'live']),
  delivery_seq: z.number().int().min(0).default(0),
});

/** Parses a queue message body; a malformed one throws, so it ends in the dead-letter queue. */
export const parseEventMessage = (body: string) => EventMessageSchema.parse(JSON.parse(body));

const dependencies = (): DeliveryDependencies => ({
  events: eventRepository(),
  links: linkRepository(),
  secrets: apiKeyRepository(),
  sender: webhookSender(),
  queue: eventQueue(),
  deadLetters: deadLetterQueue(),
  now,
  random: Math.random,
});

/** SQS consumer of the events queue: one webhook attempt per record (docs/webhooks.md). */
export const handler = sqsBatchHandler((record) =>
  deliverEvent(dependencies(), parseEventMessage(record.body)),
);
