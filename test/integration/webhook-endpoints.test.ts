import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventQueue, signingKeyCipher, webhookEndpointRepository } from '../../functions/dependencies.ts';
import { WEBHOOK_TIMEOUT_MS } from '../../functions/domain/webhook.ts';
import {
  endpointSecretContext,
  MAX_WEBHOOK_ENDPOINTS,
  TEST_EVENT_TIMEOUT_MS,
  TEST_EVENT_WAIT_MS,
  TEST_LEASE_MS,
} from '../../functions/domain/webhook-endpoint.ts';
import { cachedEndpointDirectory } from '../../functions/use-cases/webhook-fan-out.ts';
import { asFunction } from '../../lib/local/permissions.ts';
import { timeoutSecondsOf } from '../../lib/routes.ts';
import { timeoutFor } from '../support/eventually.ts';
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
