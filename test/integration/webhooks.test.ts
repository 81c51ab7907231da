import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventItem } from '../../functions/adapters/dynamodb/link-repository.ts';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  eventQueue,
  eventRepository,
  linkRepository,
  signingSecretStore,
} from '../../functions/dependencies.ts';
import { ISOLATION } from '../../functions/domain/endpoint-health.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { ATTEMPTS_KEPT } from '../../functions/domain/webhook.ts';
import { deliveryHandler } from '../../functions/handlers/deliver-webhook.ts';
import type { EventReference } from '../../functions/ports/event-queue.ts';
import { type IssuedApiKey, rotateWebhookSecret } from '../../functions/use-cases/api-keys.ts';
import type { DeliveryOutcome } from '../../functions/use-cases/webhook-attempt.ts';
import { deliverEvent } from '../../functions/use-cases/webhook-delivery.ts';
import { cachedSigningSecrets } from '../../functions/use-cases/webhook-fan-out.ts';
import { sweepOutbox } from '../../functions/use-cases/webhooks.ts';
import { itemSize } from '../bench/store-cost.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  createLink,
  type DeliveryHarness,
  eventually,
  type Receiver,
  sqsEvent,
  startDeliveryHarness,
  startReceiver,
  storedEvent,
  transition,
} from '../support/webhooks.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let other: IssuedApiKey;
let harness: DeliveryHarness;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
  other = await stack.issueKey('other-co', 'test');
  harness = await startDeliveryHarness();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});
afterAll(async () => {
  await harness.stop();
  await stack.stop();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

const failingQueue = { publish: () => Promise.reject(new Error('SQS is down')) };

describe('webhook secret rotation', () => {
  it('signs with the new and the previous secret for the overlap, then with the new one only', async () => {
    const rotating = await stack.issueKey('rotating-co', 'test');
    const rotated = await rotateWebhookSecret(signingSecretStore(), 'rotating-co', 'test');
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(rotating.webhook_secret);

    const endpoint = await receiver();
    const linkId = await createLink(stack, rotating.api_key, endpoint.url);
    await transition(linkId, eventQueue());
    const [webhook] = await eventually(async () => endpoint.received.length > 0 && endpoint.received);
    const headers = webhook?.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.webhook_secret).verify(webhook?.body ?? '', headers)).toBeTruthy();
    expect(new Webhook(rotating.webhook_secret).verify(webhook?.body ?? '', headers)).toBeTruthy();

    const afterOverlap = new Date(Date.parse(rotated.previous_valid_until) + 1000);
    expect(await signingSecretStore().getSigningSecrets('rotating-co', 'test', afterOverlap)).toEqual([
      rotated.webhook_secret,
    ]);
  });
});

describe('a paid link through the local stack', () => {
  it('reaches the webhook_url as a Standard Webhooks request signed with the account-mode secret', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, eventQueue());

    const [webhook] = await eventually(async () => endpoint.received.length > 0 && endpoint.received);
    const headers = webhook?.headers as Record<string, string>;
    const payload = new Webhook(acme.webhook_secret).verify(webhook?.body ?? '', headers) as Record<
      string,
      unknown
    >;
    expect(headers['webhook-id']).toBe(eventId);
    expect(headers['content-type']).toBe('application/json');
    expect(payload).toMatchObject({
      type: 'payment_link.paid',
      data: { id: linkId, object: 'payment_link', status: 'paid', payment: { provider: 'sandbox' } },
    });
    expect(Date.parse(payload.timestamp as string)).not.toBeNaN();
    expect(() => new Webhook(other.webhook_secret).verify(webhook?.body ?? '', headers)).toThrow();

    const log = await eventually(async () => {
      const response = await stack.request('GET', `/v1/payment-links/${linkId}/events`, {
        key: acme.api_key,
      });
      return response.body.data?.[0]?.status === 'delivered' && response.body;
    });
    expect(log.data).toEqual([
      {
        id: eventId,
        type: 'payment_link.paid',
        created_at: expect.any(String),
        status: 'delivered',
        attempts: [
          { at: expect.any(String), status_code: 200, duration_ms: expect.any(Number), error: null },
        ],
        attempt_count: 1,
      },
    ]);
  });
});

describe('the stored event', () => {
  /** The event's item as DynamoDB holds it, and the size it bills writes by. */
  const rawEvent = async (eventId: string) => {
    const { pk, sk } = keys.event(eventId, 'test');
    const client = new DynamoDBClient({});
    const { Item } = await client
      .send(new GetItemCommand({ TableName: config().TABLE_NAME, Key: { pk: { S: pk }, sk: { S: sk } } }))
      .finally(() => client.destroy());
    return { data: Item?.data, size: itemSize(Item) };
  };

  it('stays under the 1 KB of one write unit with its resource deflated, and events stored with the resource as a map deliver alike', async () => {
    const endpoint = await receiver();
    const created = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: {
        amount: { value: '10.00', currency: 'EUR' },
        description: 'Order 1001',
        redirect_url: 'https://shop.example.com/thanks',
        webhook_url: endpoint.url,
        metadata: { order_id: '1001' },
      },
    });
    const { eventId } = await transition(created.body.id, failingQueue);
    const written = await rawEvent(eventId);
    expect(written.data?.B).toBeInstanceOf(Uint8Array);
    expect(written.size).toBeLessThan(1024);

    await deliverEvent(harness.deps, { event_id: eventId, mode: 'test', delivery_seq: 0 });
    expect((await rawEvent(eventId)).size).toBeLessThan(1024); // the attempt recorded
    const paid = await stack.request('GET', `/v1/payment-links/${created.body.id}`, { key: acme.api_key });
    // A webhook carries the link without its order details (docs/webhooks.md#the-request).
    const { line_items, payment_methods, collect, custom_fields, recurring, ...snapshot } = paid.body;
    expect(JSON.parse(endpoint.received[0]?.body ?? '{}').data).toEqual(snapshot);

    // An event stored before 2026-11-26 holds its resource as a map: its redelivery sends the same body.
    await setEventAttributes(eventId, { data: snapshot });
    const restarted = await eventRepository().restart(eventId, 'test', new Date());
    expect((await rawEvent(eventId)).data?.M).toBeDefined();
    await deliverEvent(harness.deps, {
      event_id: eventId,
      mode: 'test',
      delivery_seq: restarted?.delivery_seq ?? -1,
    });
    expect(endpoint.received.map((webhook) => webhook.body)).toEqual([
      endpoint.received[0]?.body,
      endpoint.received[0]?.body,
    ]);
  });
});

describe('retries', () => {
  it('retries a 500 once the schedule says so, with the same webhook-id and a valid fresh signature', async () => {
    const endpoint = await receiver();
    endpoint.reply(500);
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, harness.queue);

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'delivered' && stored;
    });
    expect(endpoint.received).toHaveLength(2);
    for (const webhook of endpoint.received) {
      expect(webhook.headers['webhook-id']).toBe(eventId);
      expect(() =>
        new Webhook(acme.webhook_secret).verify(webhook.body, webhook.headers as Record<string, string>),
      ).not.toThrow();
    }
    expect(event.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);
  });

  it('keeps retrying while the connection is refused and delivers once the endpoint is back', async () => {
    // On an address no other server of the tests listens on, so that no other test file (they run in parallel)
    // can take the port while the endpoint is down.
    const gone = await startReceiver(0, '127.0.0.2');
    const port = gone.port;
    await gone.close();
    const linkId = await createLink(stack, acme.api_key, gone.url);
    const { eventId } = await transition(linkId, harness.queue);

    await eventually(async () => (await storedEvent(eventId)).attempts.length >= 2);
    const back = await startReceiver(port, '127.0.0.2');
    cleanups.push(() => back.close());

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'delivered' && stored;
    });
    expect(back.received).toHaveLength(1);
    expect(event.attempts.at(0)).toMatchObject({ status_code: null, error: 'Connection refused.' });
    expect(event.attempts.at(-1)).toMatchObject({ status_code: 200, error: null });
  });

  it('never follows a redirect and counts it as a failed attempt', async () => {
    const elsewhere = await receiver();
    const endpoint = await receiver();
    endpoint.reply({ status: 302, headers: { location: elsewhere.url } });
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, harness.queue);

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'delivered' && stored;
    });
    expect(event.attempts[0]).toMatchObject({ status_code: 302, error: 'Redirects are not followed.' });
    expect(elsewhere.connections).toBe(0);
  });

  it('abandons a hanging endpoint at the timeout and retries', async () => {
    const impatient = await startDeliveryHarness({ attemptTimeoutMs: 1_000 });
    cleanups.push(() => impatient.stop());
    const endpoint = await receiver();
    endpoint.reply('hang');
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, impatient.queue);

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'delivered' && stored;
    });
    const attempts = event.attempts.map((attempt) => [attempt.status_code, attempt.error]);
    expect(attempts.at(0)).toEqual([null, 'No response within 1000 ms.']);
    expect(attempts.at(-1)).toEqual([200, null]);
    // A busy machine may make the answering endpoint miss so short a timeout too: such a retry is abandoned alike.
    expect(attempts.slice(1, -1)).toEqual(
      attempts.slice(1, -1).map(() => [null, 'No response within 1000 ms.']),
    );
  });

  it('stops at 410 Gone: the event is failed, out of the outbox and not in the dead-letter queue', async () => {
    const endpoint = await receiver();
    endpoint.reply(410);
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, harness.queue);

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'failed' && stored;
    });
    expect(event.attempts.map((attempt) => attempt.status_code)).toEqual([410]);
    const farFuture = new Date(Date.now() + 30 * 86_400_000);
    const due = await eventRepository().dueEntries(farFuture, 10_000);
    expect(due.map((entry) => entry.id)).not.toContain(eventId);
    expect(await harness.deadLetterCount()).toBe(0);
  });

  it('marks the event failed after the last attempt and keeps it in the dead-letter queue', async () => {
    const exhausting = await startDeliveryHarness({ schedule: [1, 1] });
    cleanups.push(() => exhausting.stop());
    const endpoint = await receiver();
    endpoint.reply(500, 503, 500, 500);
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, exhausting.queue);

    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'failed' && stored;
    });
    expect(event.attempts.map((attempt) => attempt.status_code)).toEqual([500, 503, 500]);
    expect(await eventually(async () => (await exhausting.deadLetterCount()) === 1)).toBe(true);
  });

  it('waits for the outbox sweeper when the next retry is further away than a queue delay allows', async () => {
    let clock = Date.now();
    const slow = await startDeliveryHarness({ schedule: [20 * 60_000], now: () => new Date(clock) });
    cleanups.push(() => slow.stop());
    const endpoint = await receiver();
    endpoint.reply(500);
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, slow.queue);
    await eventually(async () => (await storedEvent(eventId)).attempts.length === 1);

    const sweepAt = (offsetMs: number) =>
      sweepOutbox({ events: eventRepository(), queue: slow.queue, now: () => new Date(clock + offsetMs) });
    const early = await eventRepository().dueEntries(new Date(clock + 15 * 60_000), 10_000);
    expect(early.map((entry) => entry.id)).not.toContain(eventId);

    clock += 21 * 60_000;
    expect((await sweepAt(0)).queued).toBeGreaterThanOrEqual(1);
    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'delivered' && stored;
    });
    expect(event.attempts.map((attempt) => attempt.status_code)).toEqual([500, 200]);
  });
});

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

describe('the delivery log and redelivery API', () => {
  it('redelivers a delivered event with the same webhook-id and answers 202', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, eventQueue());
    await eventually(async () => (await storedEvent(eventId)).status === 'delivered');

    const response = await stack.request('POST', `/v1/events/${eventId}/redeliver`, { key: acme.api_key });
    expect(response.status).toBe(202);
    await eventually(async () => endpoint.received.length === 2);
    expect(endpoint.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([eventId, eventId]);
    const log = await eventually(async () => {
      const read = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: acme.api_key });
      return read.body.data[0].attempts.length === 2 && read.body.data[0];
    });
    expect(log.status).toBe('delivered');
  });

  it('redelivers a failed event, which starts its retries afresh', async () => {
    const endpoint = await receiver();
    endpoint.reply(410);
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, eventQueue());
    await eventually(async () => (await storedEvent(eventId)).status === 'failed');

    expect(
      (await stack.request('POST', `/v1/events/${eventId}/redeliver`, { key: acme.api_key })).status,
    ).toBe(202);
    const event = await eventually(async () => {
      const stored = await storedEvent(eventId);
      return stored.status === 'delivered' && stored;
    });
    expect(event.attempts.map((attempt) => attempt.status_code)).toEqual([410, 200]);
  });

  it("answers 404 to another tenant's link events and event redelivery, as for unknown ids", async () => {
    const linkId = await createLink(stack, acme.api_key);
    const { eventId } = await transition(linkId, failingQueue, 'canceled');
    for (const [method, path] of [
      ['GET', `/v1/payment-links/${linkId}/events`],
      ['POST', `/v1/events/${eventId}/redeliver`],
      ['GET', '/v1/payment-links/pl_doesnotexist000000000000/events'],
      ['POST', '/v1/events/evt_doesnotexist00000000000/redeliver'],
    ] as const) {
      const response = await stack.request(method, path, { key: other.api_key });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    const own = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: acme.api_key });
    expect(own.body.data.map((entry: { id: string }) => entry.id)).toEqual([eventId]);
  });

  it('keeps the latest 50 attempts of an event and counts them all', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue);
    const earlier = Array.from({ length: ATTEMPTS_KEPT }, (_, index) => ({
      at: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
      status_code: 500,
      duration_ms: index,
      error: null,
    }));
    await setEventAttributes(eventId, { attempts: earlier, attempt_count: 120 });

    const message = { event_id: eventId, mode: 'test', delivery_seq: 0, committed: true } as const;
    expect(await deliverEvent(harness.deps, message)).toBe('delivered');

    const log = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: acme.api_key });
    const [entry] = log.body.data;
    expect(entry.attempt_count).toBe(121);
    expect(entry.attempts).toHaveLength(ATTEMPTS_KEPT);
    expect(entry.attempts[0]).toEqual(earlier[1]);
    expect(entry.attempts.at(-1)).toMatchObject({ status_code: 200 });
  });

  it('loses no attempt when another is logged while the full log is being trimmed', async () => {
    const endpoint = await receiver();
    const linkId = await createLink(stack, acme.api_key, endpoint.url);
    const { eventId } = await transition(linkId, failingQueue);
    const earlier = Array.from({ length: ATTEMPTS_KEPT }, (_, index) => ({
      at: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(),
      status_code: 503,
      duration_ms: index,
      error: null,
    }));
    await setEventAttributes(eventId, { attempts: earlier, attempt_count: ATTEMPTS_KEPT });
    const racing = {
      ...harness.deps,
      sender: {
        send: async (request: Parameters<typeof harness.deps.sender.send>[0]) => {
          // A copy of an older message finishes its attempt while this one is on the wire.
          const stale = { ...(await storedEvent(eventId)), delivery_seq: 99 };
          await eventRepository().finish(
            stale,
            { at: new Date().toISOString(), status_code: 502, duration_ms: 1, error: null },
            { status: 'delivered' },
            new Date(),
          );
          return harness.deps.sender.send(request);
        },
      },
    };
    const message = { event_id: eventId, mode: 'test', delivery_seq: 0, committed: true } as const;
    expect(await deliverEvent(racing, message)).toBe('delivered');

    const event = await storedEvent(eventId);
    expect(event).toMatchObject({ status: 'delivered', attempt_count: ATTEMPTS_KEPT + 2 });
    expect(event.attempts).toHaveLength(ATTEMPTS_KEPT);
    expect(event.attempts.slice(-2).map((attempt) => attempt.status_code)).toEqual([502, 200]);
    expect(event.attempts[0]).toEqual(earlier[2]);
  });

  it('requires an API key for both operations', async () => {
    expect((await stack.request('GET', '/v1/payment-links/pl_x/events')).status).toBe(401);
    expect((await stack.request('POST', '/v1/events/evt_x/redeliver')).status).toBe(401);
  });
});

/** Puts an event into a state only a long history would reach. */
async function setEventAttributes(eventId: string, attributes: Record<string, unknown>) {
  const names = Object.keys(attributes);
  await documentClient().send(
    new UpdateCommand({
      TableName: config().TABLE_NAME,
      Key: keys.event(eventId, 'test'),
      UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, attributes[name]])),
    }),
  );
}

function lambdaContext() {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'deliver-webhook',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:deliver-webhook',
    memoryLimitInMB: '512',
    awsRequestId: 'test',
    logGroupName: 'test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
