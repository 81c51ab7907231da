import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEndpointRepository } from '../../functions/dependencies.ts';
import { RETRY_SCHEDULE_MS } from '../../functions/domain/webhook.ts';
import { timeoutFor } from '../support/eventually.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { endpointHelpers } from '../support/webhook-tests.ts';
import { createLink, eventually, startDeliveryHarness, transition } from '../support/webhooks.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const { cleanups, receiver, newAccount, documented, createEndpoint } = endpointHelpers(() => stack);

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
