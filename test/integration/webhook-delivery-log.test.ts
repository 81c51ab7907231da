import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventQueue, eventRepository } from '../../functions/dependencies.ts';
import { ATTEMPTS_KEPT } from '../../functions/domain/webhook.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { deliverEvent } from '../../functions/use-cases/webhook-delivery.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { closedAfterEach, failingQueue, setEventAttributes } from '../support/webhook-tests.ts';
import {
  createLink,
  type DeliveryHarness,
  eventually,
  startDeliveryHarness,
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

const { receiver } = closedAfterEach();

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
