import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { HttpWebhookSender } from '../adapters/http/webhook-sender.ts';
import { config } from '../config.ts';
import {
  attemptsInFlight,
  deadLetterQueue,
  deliveryEventQueue,
  deliverySigningSecrets,
  endpointHealthCache,
  endpointHealthStore,
  endpointRecoveryStore,
  eventRepository,
  linkRepository,
  now,
  subscriptionRepository,
  webhookEndpointDirectory,
  webhookEndpointRepository,
} from '../dependencies.ts';
import { once } from '../once.ts';
import { sqsBatchHandler } from '../sqs/batch-handler.ts';
import { type RecoveryMessage, recoverStep } from '../use-cases/recovery.ts';
import {
  type DeliveryDependencies,
  deliverEvent,
  type EventMessage,
  readBatchEvents,
  readEndpointHealth,
} from '../use-cases/webhook-delivery.ts';
import { readBatchEndpoints } from '../use-cases/webhook-fan-out.ts';
import { newInvocation, putInvocationMetrics } from '../use-cases/webhook-invocation.ts';
import * as z from '../zod.ts';

const eventMessageSchema = /* @__PURE__ */ once(() =>
  z.union([
    z.object({
      event_id: z.string().check(z.minLength(1)),
      mode: z.enum(['test', 'live']),
      delivery_seq: z._default(z.int().check(z.minimum(0)), 0),
      committed: z.optional(z.boolean()),
      endpoint_id: z.optional(z.string().check(z.minLength(1))),
    }),
    z.object({
      recovery_of: z.string().check(z.minLength(1)),
      account: z.string().check(z.minLength(1)),
      mode: z.enum(['test', 'live']),
      delivery_seq: z.int().check(z.minimum(0)),
    }),
  ]),
);

/** Parses a queue message body; a malformed one throws, so it ends in the dead-letter queue. */
export const parseEventMessage = (body: string): EventMessage | RecoveryMessage =>
  eventMessageSchema().parse(JSON.parse(body));

const isRecovery = (message: EventMessage | RecoveryMessage): message is RecoveryMessage =>
  'recovery_of' in message;

/** The event messages of a batch that parse (the others fail on their own when their record is handled). */
function wellFormedMessages(event: SQSEvent): EventMessage[] {
  return event.Records.flatMap((record) => {
    try {
      const message = parseEventMessage(record.body);
      return isRecovery(message) ? [] : [message];
    } catch {
      return [];
    }
  });
}

/**
 * The SQS consumer of the events queue (docs/webhooks.md): the batch's events are read with one request, the
 * webhook endpoints of their tenants with one per tenant, and the health of their endpoints with another unless
 * recently read; then each record makes at most one attempt
 * (or is deferred, when its endpoint may not take one now), or carries a recovery one step on, and only the
 * records that fail are reported back.
 */
export function deliveryHandler(resolveDependencies: () => DeliveryDependencies) {
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deps = resolveDependencies();
    const invocation = newInvocation(deps.now().getTime());
    const batch = await readBatchEvents(deps.events, wellFormedMessages(event));
    await readBatchEndpoints(deps, batch.values(), invocation.startedAt);
    await readEndpointHealth(deps, batch.values());
    const handleRecords = sqsBatchHandler((record) => {
      const message = parseEventMessage(record.body);
      return isRecovery(message)
        ? recoverStep(deps, message, invocation.startedAt)
        : deliverEvent(deps, message, batch, invocation);
    });
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

const dependencies = (): DeliveryDependencies => ({
  events: eventRepository(),
  links: linkRepository(),
  subscriptions: subscriptionRepository(),
  secrets: deliverySigningSecrets(),
  sender: webhookSender(),
  queue: deliveryEventQueue(),
  deadLetters: deadLetterQueue(),
  endpoints: endpointHealthStore(),
  endpointHealth: endpointHealthCache(),
  attemptsInFlight: attemptsInFlight(),
  webhookEndpoints: webhookEndpointDirectory(),
  recoveries: endpointRecoveryStore(),
  endpointStats: webhookEndpointRepository(),
  now,
  random: Math.random,
  schedule: config().WEBHOOK_RETRY_SCHEDULE_MS,
});

export const handler = deliveryHandler(dependencies);
