import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { HttpWebhookSender } from '../adapters/http/webhook-sender.ts';
import { config } from '../config.ts';
import {
  deadLetterQueue,
  deliveryEventQueue,
  endpointHealthStore,
  eventRepository,
  linkRepository,
  now,
  signingSecretStore,
} from '../dependencies.ts';
import { once } from '../once.ts';
import { sqsBatchHandler } from '../sqs/batch-handler.ts';
import {
  cachedSigningSecrets,
  type DeliveryDependencies,
  deliverEvent,
  type EventMessage,
  newInvocation,
  putInvocationMetrics,
  readBatchEvents,
  readEndpointHealth,
} from '../use-cases/webhook-delivery.ts';
import * as z from '../zod.ts';

const eventMessageSchema = /* @__PURE__ */ once(() =>
  z.object({
    event_id: z.string().check(z.minLength(1)),
    mode: z.enum(['test', 'live']),
    delivery_seq: z._default(z.int().check(z.minimum(0)), 0),
    committed: z.optional(z.boolean()),
  }),
);

/** Parses a queue message body; a malformed one throws, so it ends in the dead-letter queue. */
export const parseEventMessage = (body: string) => eventMessageSchema().parse(JSON.parse(body));

/** The messages of a batch that parse (the others fail on their own when their record is handled). */
function wellFormedMessages(event: SQSEvent): EventMessage[] {
  return event.Records.flatMap((record) => {
    try {
      return [parseEventMessage(record.body)];
    } catch {
      return [];
    }
  });
}

/**
 * The SQS consumer of the events queue (docs/webhooks.md): the batch's events are read with one request, and
 * the health of their endpoints with another unless recently read; then each record makes at most one attempt
 * (or is deferred, when its endpoint may not take one now), and only the records that fail are reported back.
 */
export function deliveryHandler(resolveDependencies: () => DeliveryDependencies) {
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deps = resolveDependencies();
    const batch = await readBatchEvents(deps.events, wellFormedMessages(event));
    await readEndpointHealth(deps, batch.values());
    const invocation = newInvocation();
    const handleRecords = sqsBatchHandler((record) =>
      deliverEvent(deps, parseEventMessage(record.body), batch, invocation),
    );
    try {
      return await handleRecords(event, context);
    } finally {
      putInvocationMetrics(invocation);
    }
  };
}

/**
 * Built here rather than in functions/dependencies.ts: its filtering agent and ipaddr.js are CommonJS, which
 * bundlers cannot tree-shake, so every function importing the composition root would carry them.
 */
const webhookSender = /* @__PURE__ */ once(
  () => new HttpWebhookSender({ allowPrivateTargets: config().ALLOW_PRIVATE_TARGETS }),
);

const signingSecrets = /* @__PURE__ */ once(() => cachedSigningSecrets(signingSecretStore(), now));

const dependencies = (): DeliveryDependencies => ({
  events: eventRepository(),
  links: linkRepository(),
  secrets: signingSecrets(),
  sender: webhookSender(),
  queue: deliveryEventQueue(),
  deadLetters: deadLetterQueue(),
  endpoints: endpointHealthStore(),
  now,
  random: Math.random,
  schedule: config().WEBHOOK_RETRY_SCHEDULE_MS,
});

export const handler = deliveryHandler(dependencies);
