import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointRecoveryStore, eventQueue, linkRepository } from '../../functions/dependencies.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { RETRY_SCHEDULE_MS } from '../../functions/domain/webhook.ts';
import { timeoutFor } from '../support/eventually.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { endpointHelpers, verifiedId } from '../support/webhook-tests.ts';
import { eventually } from '../support/webhooks.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const { receiver, newAccount, documented, createEndpoint } = endpointHelpers(() => stack);

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
