import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventQueue } from '../../functions/dependencies.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { endpointHelpers, verified } from '../support/webhook-tests.ts';
import { createLink, eventually, transition } from '../support/webhooks.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const { receiver, newAccount, documented, createEndpoint } = endpointHelpers(() => stack);

describe('fan-out', () => {
  it("sends each event to every enabled endpoint subscribed to its type, and to the link's webhook_url, each signed with its own secret", async () => {
    const acme = await newAccount();
    const paidOnly = await receiver();
    const canceledOnly = await receiver();
    const everything = await receiver();
    const switchedOff = await receiver();
    const linkUrl = await receiver();
    const paidEndpoint = await createEndpoint(acme.api_key, {
      url: paidOnly.url,
      enabled_events: ['payment_link.paid'],
    });
    const canceledEndpoint = await createEndpoint(acme.api_key, {
      url: canceledOnly.url,
      enabled_events: ['payment_link.canceled'],
    });
    const allEndpoint = await createEndpoint(acme.api_key, { url: everything.url, enabled_events: ['*'] });
    const off = await createEndpoint(acme.api_key, { url: switchedOff.url, enabled_events: ['*'] });
    await stack.request('PATCH', `/v1/webhook-endpoints/${off.id}`, {
      key: acme.api_key,
      body: { status: 'disabled' },
    });

    const paidLink = await createLink(stack, acme.api_key, linkUrl.url);
    const { eventId: paidEvent } = await transition(paidLink, eventQueue(), 'paid');
    const canceledLink = await createLink(stack, acme.api_key);
    const { eventId: canceledEvent } = await transition(canceledLink, eventQueue(), 'canceled');

    await eventually(
      async () =>
        paidOnly.received.length === 1 &&
        canceledOnly.received.length === 1 &&
        everything.received.length === 2 &&
        linkUrl.received.length === 1,
    );
    expect(verified(paidOnly.received[0], paidEndpoint.secret)).toMatchObject({
      type: 'payment_link.paid',
      data: { id: paidLink },
    });
    expect(paidOnly.received[0]?.headers['webhook-id']).toBe(paidEvent);
    expect(verified(canceledOnly.received[0], canceledEndpoint.secret).type).toBe('payment_link.canceled');
    expect(canceledOnly.received[0]?.headers['webhook-id']).toBe(canceledEvent);
    expect(everything.received.map((webhook) => verified(webhook, allEndpoint.secret).type).sort()).toEqual([
      'payment_link.canceled',
      'payment_link.paid',
    ]);
    expect(verified(linkUrl.received[0], acme.webhook_secret).type).toBe('payment_link.paid');
    // Each secret signs only its own endpoint's webhooks.
    expect(() => verified(paidOnly.received[0], allEndpoint.secret)).toThrow();
    expect(() => verified(paidOnly.received[0], acme.webhook_secret)).toThrow();
    expect(switchedOff.received).toHaveLength(0);

    // Each delivery keeps its own attempts log, read through the events API.
    const event = await eventually(async () => {
      const response = await stack.request('GET', `/v1/events/${paidEvent}`, { key: acme.api_key });
      return (
        response.body.deliveries?.every((d: { status: string }) => d.status === 'delivered') && response.body
      );
    });
    expect(event).toMatchObject({
      id: paidEvent,
      object: 'event',
      type: 'payment_link.paid',
      link_id: paidLink,
    });
    expect(
      event.deliveries.map((delivery: { endpoint_id: string | null }) => delivery.endpoint_id).sort(),
    ).toEqual([null, allEndpoint.id, paidEndpoint.id].sort());
    for (const delivery of event.deliveries) {
      expect(delivery).toMatchObject({
        status: 'delivered',
        attempt_count: 1,
        attempts: [{ status_code: 200 }],
      });
    }
    // The link's own log is as it always was.
    const log = await stack.request('GET', `/v1/payment-links/${paidLink}/events`, { key: acme.api_key });
    expect(log.body.data).toMatchObject([{ id: paidEvent, status: 'delivered', attempt_count: 1 }]);
  });

  it('redelivers an event to its link and to every endpoint it went to, with the same webhook-id', async () => {
    const acme = await newAccount();
    const hooks = await receiver();
    const linkUrl = await receiver();
    await createEndpoint(acme.api_key, { url: hooks.url, enabled_events: ['*'] });
    const linkId = await createLink(stack, acme.api_key, linkUrl.url);
    const { eventId } = await transition(linkId, eventQueue(), 'canceled');
    await eventually(async () => hooks.received.length === 1 && linkUrl.received.length === 1);

    const redelivered = await stack.request('POST', `/v1/events/${eventId}/redeliver`, { key: acme.api_key });
    expect(redelivered.status).toBe(202);
    await eventually(async () => hooks.received.length === 2 && linkUrl.received.length === 2);
    expect(hooks.received.map((webhook) => webhook.headers['webhook-id'])).toEqual([eventId, eventId]);
  });
});

describe('the events API', () => {
  it('pages through the account-mode events newest first, filtered by type, link and creation time', async () => {
    const acme = await newAccount();
    const other = await newAccount();
    const ids: string[] = [];
    const links: string[] = [];
    for (let index = 0; index < 5; index++) {
      const linkId = await createLink(stack, acme.api_key);
      links.push(linkId);
      ids.push((await transition(linkId, eventQueue(), index % 2 ? 'paid' : 'canceled')).eventId);
    }
    await transition(await createLink(stack, other.api_key), eventQueue(), 'canceled');

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `limit=2&cursor=${cursor}` : 'limit=2';
      const page = await documented('GET', `/v1/events?${query}`, '/v1/events', { key: acme.api_key });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((event: { id: string }) => event.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const paid = await stack.request('GET', '/v1/events?type=payment_link.paid', { key: acme.api_key });
    expect(paid.body.data.map((event: { id: string }) => event.id)).toEqual([ids[3], ids[1]]);
    expect(paid.body.data[0]).toMatchObject({
      object: 'event',
      type: 'payment_link.paid',
      link_id: links[3],
      data: { id: links[3], status: 'paid' },
    });
    const ofLink = await stack.request('GET', `/v1/events?link=${links[2]}`, { key: acme.api_key });
    expect(ofLink.body).toEqual({ data: [expect.objectContaining({ id: ids[2] })], next_cursor: null });

    const one = await documented('GET', `/v1/events/${ids[2]}`, '/v1/events/{id}', { key: acme.api_key });
    const since = encodeURIComponent(one.body.created_at);
    const recent = await stack.request('GET', `/v1/events?created[gte]=${since}`, { key: acme.api_key });
    expect(recent.body.data.map((event: { id: string }) => event.id)).toEqual([ids[4], ids[3], ids[2]]);

    expect((await stack.request('GET', `/v1/events/${ids[0]}`, { key: other.api_key })).status).toBe(404);
    const first = await stack.request('GET', '/v1/events?limit=1', { key: acme.api_key });
    const foreign = await stack.request('GET', `/v1/events?cursor=${first.body.next_cursor}`, {
      key: other.api_key,
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual([{ pointer: '/cursor', detail: expect.any(String) }]);
    const badLimit = await documented('GET', '/v1/events?limit=0&type=nope', '/v1/events', {
      key: acme.api_key,
    });
    expect(badLimit.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/limit',
      '/type',
    ]);
  });
});
