import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { config } from '../../functions/config.ts';
import { eventQueue, eventRepository, signingSecretStore } from '../../functions/dependencies.ts';
import { type IssuedApiKey, rotateWebhookSecret } from '../../functions/use-cases/api-keys.ts';
import { deliverEvent } from '../../functions/use-cases/webhook-delivery.ts';
import { sweepOutbox } from '../../functions/use-cases/webhooks.ts';
import { itemSize } from '../bench/store-cost.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { closedAfterEach, failingQueue, setEventAttributes } from '../support/webhook-tests.ts';
import {
  createLink,
  type DeliveryHarness,
  eventually,
  startDeliveryHarness,
  startReceiver,
  storedEvent,
  transition,
} from '../support/webhooks.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let other: IssuedApiKey;
let harness: DeliveryHarness;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
  other = await stack.issueKey('other-co', 'test');
  harness = await startDeliveryHarness();
});
afterAll(async () => {
  await harness.stop();
  await stack.stop();
});

const { cleanups, receiver } = closedAfterEach();

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
    const { line_items, payment_methods, collect, custom_fields, ...snapshot } = paid.body;
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
