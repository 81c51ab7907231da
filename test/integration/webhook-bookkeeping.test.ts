import { AsyncLocalStorage } from 'node:async_hooks';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventItem } from '../../functions/adapters/dynamodb/link-repository.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { eventRepository, linkRepository, signingSecretStore } from '../../functions/dependencies.ts';
import { ISOLATION } from '../../functions/domain/endpoint-health.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { deliveryHandler } from '../../functions/handlers/deliver-webhook.ts';
import type { EventReference } from '../../functions/ports/event-queue.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import type { DeliveryOutcome } from '../../functions/use-cases/webhook-attempt.ts';
import { deliverEvent } from '../../functions/use-cases/webhook-delivery.ts';
import { cachedSigningSecrets } from '../../functions/use-cases/webhook-fan-out.ts';
import { sweepOutbox } from '../../functions/use-cases/webhooks.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { closedAfterEach, failingQueue, lambdaContext } from '../support/webhook-tests.ts';
import {
  createLink,
  type DeliveryHarness,
  eventually,
  sqsEvent,
  startDeliveryHarness,
  storedEvent,
  transition,
} from '../support/webhooks.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let harness: DeliveryHarness;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
  harness = await startDeliveryHarness();
});
afterAll(async () => {
  await harness.stop();
  await stack.stop();
});

const { cleanups, receiver } = closedAfterEach();

describe('no lost event, no double bookkeeping', () => {
  it('delivers an event whose queue send failed once the outbox sweeper finds it due', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue);
    expect((await storedEvent(eventId)).status).toBe('pending');

    const notYet = await sweepOutbox({
      events: eventRepository(),
      queue: harness.queue,
      now: () => new Date(),
    });
    expect(notYet.queued).toBe(0);
    const published: EventReference[] = [];
    const swept = await sweepOutbox({
      events: eventRepository(),
      queue: {
        publish: (event, options) => {
          published.push(event);
          return harness.queue.publish(event, options);
        },
      },
      now: () => new Date(Date.now() + 3 * 60_000),
    });
    expect(swept.queued).toBeGreaterThanOrEqual(1);
    // The sweeper's message names the event's tenant too, for the fair queue (docs/webhooks.md, "Queue order").
    const { account } = await storedEvent(eventId);
    expect(published.find((event) => event.id === eventId)).toEqual({
      id: eventId,
      account,
      mode: 'test',
      delivery_seq: 0,
    });

    await eventually(async () => (await storedEvent(eventId)).status === 'delivered');
    expect(endpoint.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([eventId]);
  });

  it('delivers once and records one attempt when the same message arrives twice, even in one batch', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue);
    const body = JSON.stringify({ event_id: eventId, mode: 'test', delivery_seq: 0 });

    const response = await harness.handler(sqsEvent([body, body]), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    await harness.handler(sqsEvent([body]), lambdaContext());

    const event = await storedEvent(eventId);
    expect(event.status).toBe('delivered');
    expect(event.attempts).toHaveLength(1);
    expect(endpoint.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([eventId]);
  });

  it("reads the events of a batch with one request, the tenant's webhook endpoints with one, and records each attempt with one write", async () => {
    const endpoint = await receiver();
    const bodies: string[] = [];
    for (let i = 0; i < 4; i++) {
      const linkId = await createLink(stack, acme.api_key, endpoint.url);
      const { eventId } = await transition(linkId, failingQueue);
      bodies.push(JSON.stringify({ event_id: eventId, mode: 'test', delivery_seq: 0, committed: true }));
    }
    // As deployed: signing secrets cached (read once a minute), and the endpoint known healthy (its health is
    // read once a second at most; here within the cache), so every table request left is the events'.
    const secrets = cachedSigningSecrets(signingSecretStore(), () => new Date());
    await secrets.getSigningSecrets('acme', 'test', new Date());
    const deps = { ...harness.deps, secrets, isolation: { ...ISOLATION, cacheMs: 60_000 } };
    const handler = deliveryHandler(() => deps);
    expect((await handler(sqsEvent(bodies.slice(0, 1)), lambdaContext())).batchItemFailures).toEqual([]);
    bodies.shift();
    const commands: string[] = [];
    const counting = 'count-delivery-commands';
    // Only this invocation's requests: the stack's pollers and schedules share the client, and run meanwhile.
    const invocation = new AsyncLocalStorage<true>();
    documentClient().middlewareStack.add(
      (next, context) => (args) => {
        if (invocation.getStore()) commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: counting },
    );
    try {
      const response = await invocation.run(true, () => handler(sqsEvent(bodies), lambdaContext()));
      expect(response.batchItemFailures).toEqual([]);
    } finally {
      documentClient().middlewareStack.remove(counting);
    }
    expect(endpoint.received).toHaveLength(4);
    expect(commands.sort()).toEqual([
      'BatchGetItemCommand',
      'QueryCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
      'UpdateItemCommand',
    ]);
  });

  it('reports a malformed message as its own failure and delivers the rest of its batch', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue);
    const good = JSON.stringify({ event_id: eventId, mode: 'test', delivery_seq: 0, committed: true });
    const batch = sqsEvent(['{"event_id": 42}', 'not json', good]);

    const response = await harness.handler(batch, lambdaContext());
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: batch.Records[0]?.messageId },
      { itemIdentifier: batch.Records[1]?.messageId },
    ]);
    expect(endpoint.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([eventId]);
  });

  it('logs an attempt that a redelivery overtook, and leaves the event to the new round', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue);
    const overtaken: typeof harness.deps = {
      ...harness.deps,
      sender: {
        send: async (request) => {
          // The merchant asks for a redelivery while this attempt is on the wire.
          await eventRepository().restart(eventId, 'test', new Date(Date.now() + 120_000));
          return harness.deps.sender.send(request);
        },
      },
    };
    const message = { event_id: eventId, mode: 'test', delivery_seq: 0, committed: true } as const;

    expect(await deliverEvent(overtaken, message)).toBe('delivered');
    const event = await storedEvent(eventId);
    expect(event).toMatchObject({ status: 'pending', delivery_seq: 1, round_attempts: 0 });
    expect(event.attempts).toEqual([expect.objectContaining({ status_code: 200 })]);
    expect(endpoint.received).toHaveLength(1);
  });

  it('reports only the records that failed in a batch, and their retry leaves the delivered ones alone', async () => {
    const endpoints = [await receiver(), await receiver(), await receiver()];
    const events: string[] = [];
    for (const endpoint of endpoints) {
      const linkId = await createLink(stack, acme.api_key, endpoint.url);
      events.push((await transition(linkId, failingQueue)).eventId);
    }
    let crashed = 0;
    const crashing = await startDeliveryHarness({
      wrapSender: (sender) => ({
        send: (request) =>
          request.url === endpoints[2]?.url && endpoints[2].received.length === 0 && !crashed++
            ? Promise.reject(new Error('the function died here'))
            : sender.send(request),
      }),
    });
    cleanups.push(() => crashing.stop());
    const bodies = events.map((id) => JSON.stringify({ event_id: id, mode: 'test', delivery_seq: 0 }));
    const batch = sqsEvent(bodies);

    const first = await crashing.handler(batch, lambdaContext());
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: batch.Records[2]?.messageId }]);
    expect(endpoints.map((endpoint) => endpoint.received.length)).toEqual([1, 1, 0]);

    // What the event source mapping does next: the whole batch again only if the function crashed outright,
    // otherwise just the failed record. Either way the delivered events are not sent again.
    await crashing.handler(batch, lambdaContext());
    expect(endpoints.map((endpoint) => endpoint.received.length)).toEqual([1, 1, 1]);
    for (const id of events) expect((await storedEvent(id)).attempts).toHaveLength(1);
  });

  it('ignores an orphan event that no link names, and takes it out of the outbox', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const link = await linkRepository().get(linkId, 'test');
    const orphan = markPaid(
      link!,
      {
        id: 'pay_x',
        connection_id: 'pc_x',
        provider: 'sandbox' as const,
        reference: 'pay_lost',
        amount: link!.amount!,
      },
      new Date(),
    )!.event;
    // The transition's first write happened, then the function died before the link named the event.
    await documentClient().send(new PutCommand({ TableName: config().TABLE_NAME, Item: eventItem(orphan) }));

    const outcome: DeliveryOutcome = await deliverEvent(harness.deps, {
      event_id: orphan.id,
      mode: 'test',
      delivery_seq: 0,
    });
    expect(outcome).toBe('skipped_orphan');
    expect(endpoint.connections).toBe(0);
    const due = await eventRepository().dueEntries(new Date(Date.now() + 86_400_000), 10_000);
    expect(due.map((entry) => entry.id)).not.toContain(orphan.id);
    const log = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: acme.api_key });
    expect(log.body.data).toEqual([]);
  });

  it('delivers a message from a committed transition without reading the link, and reads secrets once a minute', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue); // stored and committed; the send "failed"
    let linkReads = 0;
    let secretReads = 0;
    const counted = {
      ...harness.deps,
      links: {
        ...linkRepository(),
        get: (...args: Parameters<ReturnType<typeof linkRepository>['get']>) => {
          linkReads++;
          return linkRepository().get(...args);
        },
      } as ReturnType<typeof linkRepository>,
      secrets: cachedSigningSecrets(
        {
          getSigningSecrets: (...args) => {
            secretReads++;
            return signingSecretStore().getSigningSecrets(...args);
          },
        },
        () => new Date(),
      ),
    };
    expect(
      await deliverEvent(counted, { event_id: eventId, mode: 'test', delivery_seq: 0, committed: true }),
    ).toBe('delivered');
    expect(linkReads).toBe(0);
    await counted.secrets.getSigningSecrets('acme', 'test', new Date());
    expect(secretReads).toBe(1);
  });

  it('records the event of a link without webhook_url as failed, saying why, and sends nothing', async () => {
    const linkId = await createLink(stack, acme.api_key);
    const { eventId } = await transition(linkId, harness.queue, 'canceled');

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'failed' && stored;
    });
    expect(event.type).toBe('payment_link.canceled');
    expect(event.attempts).toEqual([
      expect.objectContaining({ status_code: null, error: expect.stringMatching(/no webhook_url/) }),
    ]);
    expect(await harness.deadLetterCount()).toBe(0);
  });
});
