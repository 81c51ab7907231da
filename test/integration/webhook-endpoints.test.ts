import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  endpointRecoveryStore,
  eventQueue,
  linkRepository,
  signingKeyCipher,
  webhookEndpointRepository,
} from '../../functions/dependencies.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { RETRY_SCHEDULE_MS, WEBHOOK_TIMEOUT_MS } from '../../functions/domain/webhook.ts';
import {
  endpointSecretContext,
  MAX_WEBHOOK_ENDPOINTS,
  TEST_EVENT_TIMEOUT_MS,
  TEST_EVENT_WAIT_MS,
  TEST_LEASE_MS,
} from '../../functions/domain/webhook-endpoint.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { cachedEndpointDirectory } from '../../functions/use-cases/webhook-fan-out.ts';
import { asFunction } from '../../lib/local/permissions.ts';
import { timeoutSecondsOf } from '../../lib/routes.ts';
import { timeoutFor } from '../support/eventually.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  createLink,
  eventually,
  type ReceivedWebhook,
  type Receiver,
  startDeliveryHarness,
  startReceiver,
  transition,
} from '../support/webhooks.ts';

let stack: TestStack;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  stack = await startTestStack();
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});
afterAll(async () => {
  await stack.stop();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

let accounts = 0;
/** A fresh account for each test (endpoints are per account and mode): its test key, and its name. */
async function newAccount(): Promise<IssuedApiKey & { account: string }> {
  const account = `endpoints-${accounts++}`;
  return { ...(await stack.issueKey(account, 'test')), account };
}

/** A request whose answer must match the OpenAPI document's schema for `template` (e.g. `/v1/events/{id}`). */
async function documented(
  method: string,
  path: string,
  template: string,
  options: Parameters<TestStack['request']>[2],
) {
  const response = await stack.request(method, path, options);
  expectDocumented(method.toLowerCase(), template, response);
  return response;
}

async function createEndpoint(key: string, body: Record<string, unknown>) {
  const response = await stack.request('POST', '/v1/webhook-endpoints', { key, body });
  if (response.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(response.body)}`);
  return response.body as { id: string; secret: string };
}

const verified = (webhook: ReceivedWebhook | undefined, secret: string) =>
  new Webhook(secret).verify(webhook?.body ?? '', webhook?.headers as Record<string, string>) as {
    type: string;
    data: { id: string };
  };

describe('webhook endpoints as a resource', () => {
  it('are created with a secret shown once, listed, read, changed and deleted, per account and mode', async () => {
    const acme = await newAccount();
    const created = await documented('POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', {
      key: acme.api_key,
      body: {
        url: 'https://hooks.example.com/payments',
        enabled_events: ['payment_link.paid', 'refund.succeeded', 'payment_link.paid'],
        description: 'ERP',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^we_[0-9A-Za-z]{24}$/),
      object: 'webhook_endpoint',
      url: 'https://hooks.example.com/payments',
      enabled_events: ['payment_link.paid', 'refund.succeeded'],
      description: 'ERP',
      status: 'enabled',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const { id, secret: _secret, ...endpoint } = created.body;
    expect(created.headers.get('location')).toBe(`/v1/webhook-endpoints/${id}`);

    const read = await documented('GET', `/v1/webhook-endpoints/${id}`, '/v1/webhook-endpoints/{id}', {
      key: acme.api_key,
    });
    expect(read.body).toEqual({
      id,
      ...endpoint,
      health: { attempts: 0, success_rate: null, latency_ms: null, failing_since: null },
    });
    const listed = await documented('GET', '/v1/webhook-endpoints', '/v1/webhook-endpoints', {
      key: acme.api_key,
    });
    expect(listed.body).toEqual({ data: [{ id, ...endpoint }] });

    const changed = await documented('PATCH', `/v1/webhook-endpoints/${id}`, '/v1/webhook-endpoints/{id}', {
      key: acme.api_key,
      body: { enabled_events: ['*'], status: 'disabled', description: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ enabled_events: ['*'], status: 'disabled', description: null });

    const live = await stack.issueKey(acme.account, 'live');
    expect((await stack.request('GET', `/v1/webhook-endpoints/${id}`, { key: live.api_key })).status).toBe(
      404,
    );
    const other = await newAccount();
    expect((await stack.request('GET', `/v1/webhook-endpoints/${id}`, { key: other.api_key })).status).toBe(
      404,
    );
    expect(
      (await stack.request('DELETE', `/v1/webhook-endpoints/${id}`, { key: other.api_key })).status,
    ).toBe(404);

    const deleted = await documented('DELETE', `/v1/webhook-endpoints/${id}`, '/v1/webhook-endpoints/{id}', {
      key: acme.api_key,
    });
    expect(deleted.body).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    expect((await stack.request('GET', `/v1/webhook-endpoints/${id}`, { key: acme.api_key })).status).toBe(
      404,
    );
    expect((await stack.request('GET', '/v1/webhook-endpoints', { key: acme.api_key })).body).toEqual({
      data: [],
    });
  });

  it('keep their signing secret sealed at rest, opened by delivery alone and out of the public functions’ reach', async () => {
    const acme = await newAccount();
    const { id, secret } = await createEndpoint(acme.api_key, {
      url: 'https://hooks.example.com/a',
      enabled_events: ['*'],
    });
    const stored = await webhookEndpointRepository().get(acme.account, 'test', id);
    expect(stored?.sealed.secret).toMatch(/^local1\./);
    expect(JSON.stringify(stored)).not.toContain(secret.slice('whsec_'.length));
    if (!stored) throw new Error('endpoint missing');

    // Only delivery opens it; the function that sealed it cannot, and the public functions cannot even read it.
    const open = () => signingKeyCipher().decrypt(stored.sealed.secret, endpointSecretContext(stored));
    await expect(asFunction('deliver-webhook', open)).resolves.toBe(secret);
    for (const handler of [
      'create-webhook-endpoint',
      'rotate-webhook-endpoint-secret',
      'get-webhook-endpoint',
      'console',
    ] as const) {
      await expect(asFunction(handler, open)).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('kms:Decrypt'),
      });
    }
    for (const handler of ['checkout-page', 'psp-notifications', 'sandbox-checkout'] as const) {
      await expect(
        asFunction(handler, () => webhookEndpointRepository().get(acme.account, 'test', id)),
      ).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('WEBHOOK_ENDPOINTS#'),
      });
    }
  });

  it('refuse bad input with pointers, and a 17th endpoint with 409', async () => {
    const acme = await newAccount();
    const bad = await documented('POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', {
      key: acme.api_key,
      body: { url: 'ftp://x', enabled_events: ['payment_link.nope'], extra: 1 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/enabled_events/0',
      '/extra',
      '/url',
    ]);
    const none = await stack.request('POST', '/v1/webhook-endpoints', {
      key: acme.api_key,
      body: { url: 'https://hooks.example.com/a', enabled_events: [] },
    });
    expect(none.body.errors).toEqual([{ pointer: '/enabled_events', detail: expect.any(String) }]);

    await Promise.all(
      Array.from({ length: MAX_WEBHOOK_ENDPOINTS + 2 }, () =>
        stack.request('POST', '/v1/webhook-endpoints', {
          key: acme.api_key,
          body: { url: 'https://hooks.example.com/a', enabled_events: ['*'] },
        }),
      ),
    ).then((responses) => {
      expect(responses.filter((response) => response.status === 201)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
      expect(responses.filter((response) => response.status === 409)).toHaveLength(2);
    });
    const listed = await stack.request('GET', '/v1/webhook-endpoints', { key: acme.api_key });
    expect(listed.body.data).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });
});

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

describe('secret rotation', () => {
  it('signs with the new and the previous secret for 24 hours, then with the new one only', async () => {
    const acme = await newAccount();
    const hooks = await receiver();
    const { id, secret: first } = await createEndpoint(acme.api_key, {
      url: hooks.url,
      enabled_events: ['*'],
    });
    const rotated = await documented(
      'POST',
      `/v1/webhook-endpoints/${id}/rotate-secret`,
      '/v1/webhook-endpoints/{id}/rotate-secret',
      { key: acme.api_key },
    );
    expect(rotated.status).toBe(200);
    const second: string = rotated.body.secret;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    const overlapEnds = Date.parse(rotated.body.previous_secret_expires_at);
    expect(overlapEnds - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    await transition(await createLink(stack, acme.api_key), eventQueue(), 'canceled');
    const [webhook] = await eventually(async () => hooks.received.length > 0 && hooks.received);
    expect(String(webhook?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(webhook, first).type).toBe('payment_link.canceled');
    expect(verified(webhook, second).type).toBe('payment_link.canceled');

    // The same store, read by delivery with a clock past the overlap: the new secret alone signs.
    const stored = await webhookEndpointRepository().get(acme.account, 'test', id);
    if (!stored) throw new Error('endpoint missing');
    const later = cachedEndpointDirectory(webhookEndpointRepository(), signingKeyCipher(), () => new Date());
    expect(await later.secretsOf(stored, new Date(overlapEnds + 1000))).toEqual([second]);
    expect(await later.secretsOf(stored, new Date(overlapEnds - 1000))).toEqual([second, first]);
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

describe('test events', () => {
  it('sends a signed webhook_endpoint.test to that endpoint alone and answers with the attempt', async () => {
    const acme = await newAccount();
    const hooks = await receiver();
    const bystander = await receiver();
    const { id, secret } = await createEndpoint(acme.api_key, {
      url: hooks.url,
      enabled_events: ['payment_link.paid'],
    });
    await createEndpoint(acme.api_key, { url: bystander.url, enabled_events: ['*'] });

    const tested = await documented(
      'POST',
      `/v1/webhook-endpoints/${id}/test`,
      '/v1/webhook-endpoints/{id}/test',
      { key: acme.api_key },
    );
    expect(tested.body).toEqual({
      event_id: expect.stringMatching(/^evt_/),
      endpoint_id: id,
      status: 'delivered',
      attempt: { at: expect.any(String), status_code: 200, duration_ms: expect.any(Number), error: null },
    });
    expect(hooks.received).toHaveLength(1);
    expect(hooks.received[0]?.headers['webhook-id']).toBe(tested.body.event_id);
    expect(verified(hooks.received[0], secret)).toMatchObject({
      type: 'webhook_endpoint.test',
      data: { id, object: 'webhook_endpoint', url: hooks.url },
    });
    expect(bystander.received).toHaveLength(0);
    const listed = await stack.request('GET', '/v1/events?type=webhook_endpoint.test', { key: acme.api_key });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: tested.body.event_id, link_id: null })]);
  });

  it('reports a failing endpoint as it answered, and refuses to test a disabled one', async () => {
    const acme = await newAccount();
    const hooks = await receiver();
    hooks.reply(503);
    const { id } = await createEndpoint(acme.api_key, { url: hooks.url, enabled_events: ['*'] });
    const tested = await stack.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: acme.api_key });
    expect(tested.body).toMatchObject({ status: 'pending', attempt: { status_code: 503 } });

    await stack.request('PATCH', `/v1/webhook-endpoints/${id}`, {
      key: acme.api_key,
      body: { status: 'disabled' },
    });
    const refused = await stack.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: acme.api_key });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_state');
  });

  it('holds the one-test lease past the function’s timeout, so a running test never loses it', () => {
    expect(TEST_LEASE_MS).toBeGreaterThan(timeoutSecondsOf('test-webhook-endpoint') * 1000);
    expect(TEST_EVENT_WAIT_MS).toBeLessThan(timeoutSecondsOf('test-webhook-endpoint') * 1000);
  });

  it(
    'reports an endpoint that hangs as timed out after 5 s, and runs one test of an endpoint at a time',
    async () => {
      const acme = await newAccount();
      const hooks = await receiver();
      hooks.reply('hang');
      const { id } = await createEndpoint(acme.api_key, { url: hooks.url, enabled_events: ['*'] });
      const test = () => stack.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: acme.api_key });

      const first = test();
      await eventually(() => hooks.received.length > 0, { what: 'the test attempt' });
      const second = await test();
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({
        code: 'invalid_state',
        detail:
          'A test of this webhook endpoint is already under way: send the next one once it has answered.',
      });
      expect(hooks.received).toHaveLength(1);

      const tested = await first;
      expect(tested.status).toBe(200);
      expect(tested.body).toMatchObject({
        status: 'pending',
        attempt: { status_code: null, error: `No response within ${TEST_EVENT_TIMEOUT_MS} ms.` },
      });
      expect(tested.body.attempt.duration_ms).toBeLessThan(WEBHOOK_TIMEOUT_MS);

      // The lease went with the answer: the endpoint (answering again) can be tested at once.
      const again = await test();
      expect(again.status).toBe(200);
      expect(again.body.event_id).not.toBe(tested.body.event_id);
    },
    timeoutFor(TEST_EVENT_WAIT_MS, TEST_EVENT_WAIT_MS),
  );
});

describe('recovery', () => {
  /** A link of `account` canceled at `at` (a simulated past moment), handed to delivery as a transition does. */
  async function canceledAt(account: string, at: Date): Promise<string> {
    const link = newPaymentLink(
      { account, mode: 'test' },
      { amount: { value: '5.00', currency: 'EUR' } },
      at,
    );
    await linkRepository().create(link);
    const canceled = cancel(link, at);
    if (!canceled) throw new Error('not canceled');
    await linkRepository().commit(canceled);
    await eventQueue().publish({ id: canceled.event.id, account, mode: 'test', committed: true });
    return canceled.event.id;
  }

  const attemptsOf = async (key: string, eventId: string) => {
    const event = await stack.request('GET', `/v1/events/${eventId}`, { key });
    return event.body.deliveries?.[0] as { status: string; attempt_count: number } | undefined;
  };

  it(
    're-sends every event since a moment that an endpoint down for an hour never acknowledged, once each, with its webhook-id',
    async () => {
      const acme = await newAccount();
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      const hooks = await receiver();
      const { id, secret } = await createEndpoint(acme.api_key, { url: hooks.url, enabled_events: ['*'] });

      // Before the outage: one event before the recovery's start, one after it; both acknowledged.
      const before = await canceledAt(acme.account, minutesAgo(70));
      const acknowledged = await canceledAt(acme.account, minutesAgo(59));
      await eventually(async () => hooks.received.length === 2);

      // An hour of outage: five events, whose first two attempts each get a 404 from the merchant's broken
      // deployment (an answer, so isolation keeps the server trusted); the next retry is five minutes away.
      const missed: string[] = [];
      hooks.reply(...Array.from({ length: 10 }, () => 404));
      for (const minutes of [50, 40, 30, 20, 10])
        missed.push(await canceledAt(acme.account, minutesAgo(minutes)));
      await eventually(
        async () => {
          const deliveries = await Promise.all(missed.map((eventId) => attemptsOf(acme.api_key, eventId)));
          return deliveries.every(
            (delivery) => delivery?.status === 'pending' && delivery.attempt_count === 2,
          );
        },
        { withinMs: RETRY_SCHEDULE_MS[0] as number, what: 'two failed attempts of each missed event' },
      );
      const outage = hooks.received.length;

      // Fixed (the receiver answers 200 again): recover from an hour ago.
      const recovery = await documented(
        'POST',
        `/v1/webhook-endpoints/${id}/recover`,
        '/v1/webhook-endpoints/{id}/recover',
        { key: acme.api_key, body: { since: minutesAgo(60).toISOString() } },
      );
      expect(recovery.status).toBe(202);
      expect(recovery.body).toMatchObject({ endpoint_id: id, status: 'running' });
      await eventually(async () => {
        const done = await endpointRecoveryStore().get(acme.account, 'test', id);
        return done?.status === 'done' && hooks.received.length >= outage + missed.length;
      });
      expect(await endpointRecoveryStore().get(acme.account, 'test', id)).toMatchObject({
        queued: missed.length,
      });

      // Nothing lost, nothing sent twice, nothing acknowledged sent again.
      const recovered = hooks.received.slice(outage).map((webhook) => verifiedId(webhook, secret));
      expect(recovered.sort()).toEqual([...missed].sort());
      expect(recovered).not.toContain(acknowledged);
      expect(recovered).not.toContain(before);
      for (const eventId of missed) {
        expect(await attemptsOf(acme.api_key, eventId)).toMatchObject({
          status: 'delivered',
          attempt_count: 3,
        });
      }
    },
    timeoutFor(RETRY_SCHEDULE_MS[0] as number),
  );

  it('runs at most one recovery per endpoint, and refuses a since outside the 30 days', async () => {
    const acme = await newAccount();
    const { id } = await createEndpoint(acme.api_key, {
      url: 'https://hooks.example.com/a',
      enabled_events: ['*'],
    });
    const started = await endpointRecoveryStore().start(
      {
        endpoint_id: id,
        account: acme.account,
        mode: 'test',
        since: new Date().toISOString(),
        status: 'running',
        step: 0,
        queued: 0,
        started_at: new Date().toISOString(),
      },
      new Date(Date.now() + 3600_000),
    );
    expect(started).toBe(true);
    const second = await stack.request('POST', `/v1/webhook-endpoints/${id}/recover`, {
      key: acme.api_key,
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('invalid_state');
    const tooOld = await stack.request('POST', `/v1/webhook-endpoints/${id}/recover`, {
      key: acme.api_key,
      body: { since: new Date(Date.now() - 31 * 86_400_000).toISOString() },
    });
    expect(tooOld.status).toBe(422);
    expect(tooOld.body.errors).toEqual([{ pointer: '/since', detail: 'Must be within the last 30 days.' }]);
  });
});

/** The `webhook-id` of a webhook that verifies with `secret`. */
function verifiedId(webhook: ReceivedWebhook, secret: string): string {
  verified(webhook, secret);
  return String(webhook.headers['webhook-id']);
}

describe('endpoint health', () => {
  it(
    'shows the success rate and latency of the latest attempts, and disables an endpoint failing every attempt for 5 days, telling the others',
    async () => {
      const acme = await newAccount();
      let ahead = 0;
      const harness = await startDeliveryHarness({ now: () => new Date(Date.now() + ahead) });
      cleanups.push(() => harness.stop());
      const failing = await receiver();
      failing.reply(...Array.from({ length: 100 }, () => 503));
      const watcher = await receiver();
      const broken = await createEndpoint(acme.api_key, { url: failing.url, enabled_events: ['*'] });
      const watching = await createEndpoint(acme.api_key, {
        url: watcher.url,
        enabled_events: ['webhook_endpoint.disabled'],
      });
      const health = async () =>
        (
          await documented('GET', `/v1/webhook-endpoints/${broken.id}`, '/v1/webhook-endpoints/{id}', {
            key: acme.api_key,
          })
        ).body;

      await transition(await createLink(stack, acme.api_key), harness.queue, 'canceled');
      const failingSince = await eventually(async () => (await health()).health.failing_since ?? undefined);
      expect(await health()).toMatchObject({
        status: 'enabled',
        health: { success_rate: 0, latency_ms: { p50: expect.any(Number), p95: expect.any(Number) } },
      });

      // Five days later (the delivery function's clock runs ahead), it still fails: disabled.
      ahead = 5 * 24 * 3600_000 + 60_000;
      await transition(await createLink(stack, acme.api_key), harness.queue, 'canceled');
      const disabled = await eventually(async () => {
        const read = await health();
        return read.status === 'disabled' && read;
      });
      expect(disabled.health).toMatchObject({ success_rate: 0, failing_since: failingSince });
      const [notice] = await eventually(async () => watcher.received.length > 0 && watcher.received);
      // Signed five days ahead, by the delivery function's clock: checked at that time.
      const signedAt = new Date(Number(notice?.headers['webhook-timestamp']) * 1000);
      const noticeId = String(notice?.headers['webhook-id']);
      expect(notice?.headers['webhook-signature']).toBe(
        new Webhook(watching.secret).sign(noticeId, signedAt, notice?.body ?? ''),
      );
      expect(JSON.parse(notice?.body ?? '{}')).toMatchObject({
        type: 'webhook_endpoint.disabled',
        data: { id: broken.id, object: 'webhook_endpoint', status: 'disabled' },
      });
      expect(
        failing.received.every((webhook) => webhook.headers['webhook-id'] !== notice?.headers['webhook-id']),
      ).toBe(true);
    },
    timeoutFor(RETRY_SCHEDULE_MS[0] as number),
  );

  it('starts the health of a re-enabled endpoint afresh: only failures after it count', async () => {
    const acme = await newAccount();
    const { id } = await createEndpoint(acme.api_key, {
      url: 'https://hooks.example.com/in',
      enabled_events: ['*'],
    });
    const repository = webhookEndpointRepository();
    const since = new Date(Date.now() - 6 * 24 * 3600_000);
    await repository.recordAttempt(acme.account, 'test', id, { ok: false, durationMs: 30, at: since });
    await repository.recordAttempt(acme.account, 'test', id, { ok: false, durationMs: 40, at: new Date() });
    expect(
      await repository.disableFailing(acme.account, 'test', id, since.toISOString(), new Date()),
    ).toBeDefined();
    const read = async () =>
      (await stack.request('GET', `/v1/webhook-endpoints/${id}`, { key: acme.api_key })).body;
    expect((await read()).health).toMatchObject({ attempts: 2, failing_since: since.toISOString() });

    const patch = (body: Record<string, unknown>) =>
      stack.request('PATCH', `/v1/webhook-endpoints/${id}`, { key: acme.api_key, body });
    expect((await patch({ status: 'enabled' })).status).toBe(200);
    expect(await read()).toMatchObject({
      status: 'enabled',
      health: { attempts: 0, success_rate: null, latency_ms: null, failing_since: null },
    });

    // Enabling an endpoint that is enabled changes nothing of its health.
    await repository.recordAttempt(acme.account, 'test', id, { ok: false, durationMs: 50, at: new Date() });
    const failing = (await read()).health;
    expect((await patch({ status: 'enabled', description: 'ERP' })).status).toBe(200);
    expect((await read()).health).toEqual(failing);
  });

  it(
    'does not disable a re-enabled endpoint at its first failure: the 5 days count from failures after re-enabling',
    async () => {
      const acme = await newAccount();
      let ahead = 0;
      const harness = await startDeliveryHarness({ now: () => new Date(Date.now() + ahead) });
      cleanups.push(() => harness.stop());
      const failing = await receiver();
      failing.reply(...Array.from({ length: 200 }, () => 503));
      const broken = await createEndpoint(acme.api_key, { url: failing.url, enabled_events: ['*'] });
      const read = async () =>
        (await stack.request('GET', `/v1/webhook-endpoints/${broken.id}`, { key: acme.api_key })).body;
      const cancelALink = async () =>
        transition(await createLink(stack, acme.api_key), harness.queue, 'canceled');

      await cancelALink();
      const firstFailure = await eventually(async () => (await read()).health.failing_since ?? undefined);
      ahead = 5 * 24 * 3600_000 + 60_000;
      await cancelALink();
      await eventually(async () => (await read()).status === 'disabled', { what: 'the automatic disable' });

      // "Fixed it": the merchant enables it again, and an hour later (past the delivery's cached endpoints and
      // the backoff of the endpoint's failures in a row) the next webhook fails again.
      const enabled = await stack.request('PATCH', `/v1/webhook-endpoints/${broken.id}`, {
        key: acme.api_key,
        body: { status: 'enabled' },
      });
      expect(enabled.status).toBe(200);
      ahead += 3600_000;
      await cancelALink();
      const afterFailure = await eventually(
        async () => {
          const endpoint = await read();
          const since = endpoint.health.failing_since;
          const failedAgain = since !== null && since !== firstFailure;
          return endpoint.status === 'disabled' || failedAgain ? endpoint : undefined;
        },
        { what: 'a failure after re-enabling' },
      );
      expect(afterFailure.status).toBe('enabled');

      // Still failing 5 days after that first new failure: disabled again, from the new failure on.
      ahead += 5 * 24 * 3600_000 + 60_000;
      await cancelALink();
      const disabledAgain = await eventually(
        async () => {
          const endpoint = await read();
          return endpoint.status === 'disabled' ? endpoint : undefined;
        },
        { what: 'the second automatic disable' },
      );
      expect(disabledAgain.health.failing_since).toBe(afterFailure.health.failing_since);
    },
    timeoutFor(RETRY_SCHEDULE_MS[0] as number, 0, 0),
  );
});
