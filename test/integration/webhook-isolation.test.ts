// @module-tag waits: its first test waits out the 15 s webhook timeout (test/support/sequencer.ts)
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookSender } from '../../functions/adapters/http/webhook-sender.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';
import { config } from '../../functions/config.ts';
import { endpointHealthStore, eventRepository } from '../../functions/dependencies.ts';
import { endpointOf, ISOLATION } from '../../functions/domain/endpoint-health.ts';
import { WEBHOOK_TIMEOUT_MS } from '../../functions/domain/webhook.ts';
import { deliveryHandler } from '../../functions/handlers/deliver-webhook.ts';
import { lambdaContext } from '../../lib/local/api-gateway.ts';
import { queueConsumers } from '../../lib/routes.ts';
import { eventually, timeoutFor, timeoutForSteps } from '../support/eventually.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  canceledLinkEvents,
  type DeliveryHarness,
  queueEvents,
  sqsEvent,
  startDeliveryHarness,
} from '../support/webhooks.ts';

/*
 * Delivery isolation (docs/webhooks.md, "Isolation"): one tenant's hanging endpoint never delays another's
 * webhooks. Every assertion is an ordering of what the endpoints saw, never a duration.
 */

let stack: TestStack;
const cleanups: (() => Promise<void>)[] = [];
/** Where the delivery consumers' receives are written, as the events queue hands them out (a test sets it). */
let handouts: string[] | undefined;

beforeAll(async () => {
  stack = await startTestStack({
    onQueueReceive: (handler, messages) => {
      if (handler !== 'deliver-webhook') return;
      // The group is the event's tenant, `<account>:<mode>` (functions/adapters/sqs/event-queue.ts).
      for (const message of messages) handouts?.push(`handout:${message.Attributes?.MessageGroupId}`);
    },
  });
});
afterEach(async () => {
  handouts = undefined;
  while (cleanups.length) await cleanups.pop()?.();
});
afterAll(async () => {
  await stack.stop();
});

/**
 * A webhook endpoint that writes what happens into a shared `timeline`: `<name>:request` when a webhook arrives,
 * `<name>:closed` when the sender gave up on one it never answered. `answer(path, n)` decides per request.
 */
async function endpoint(
  name: string,
  timeline: string[],
  answer: (path: string, index: number) => number | 'hang' = () => 200,
) {
  let index = 0;
  let open = 0;
  let mostOpen = 0;
  const hanging = new Set<ServerResponse>();
  let released = false;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const reply = answer(request.url ?? '/', index++);
      timeline.push(`${name}:request`);
      if (reply !== 'hang') {
        response.writeHead(reply).end('ok');
        return;
      }
      if (released) {
        response.socket?.destroy();
        return;
      }
      open++;
      mostOpen = Math.max(mostOpen, open);
      hanging.add(response);
      response.on('close', () => {
        hanging.delete(response);
        open--;
        timeline.push(`${name}:closed`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    base,
    url: `${base}/hooks`,
    mostOpen: () => mostOpen,
    stillOpen: () => open,
    /** Drops the connections of the requests it never answered, and of any later one, as a crashed server. */
    release: () => {
      released = true;
      for (const response of hanging) response.socket?.destroy();
    },
  };
}

const count = (timeline: readonly string[], entry: string) =>
  timeline.filter((seen) => seen === entry).length;

describe('one hanging endpoint beside a healthy one, through the local stack', () => {
  it(
    'delivers all of the healthy endpoint’s webhooks while the hanging one still holds its first attempts',
    async () => {
      await stack.issueKey('hanging-co', 'test');
      await stack.issueKey('healthy-co', 'test');
      const timeline: string[] = [];
      const hanging = await endpoint('hanging', timeline, () => 'hang');
      const healthy = await endpoint('healthy', timeline);
      const hangingEvents = await canceledLinkEvents('hanging-co', hanging.url, 600);
      const healthyEvents = await canceledLinkEvents('healthy-co', healthy.url, 20);

      await queueEvents(sqsClient(), config().EVENTS_QUEUE_URL, 'hanging-co', hangingEvents);
      await queueEvents(sqsClient(), config().EVENTS_QUEUE_URL, 'healthy-co', healthyEvents);
      await eventually(() => timeline.includes('hanging:closed'), {
        withinMs: WEBHOOK_TIMEOUT_MS,
        what: 'the hanging endpoint’s first attempt abandoned at the webhook timeout',
      });

      const firstTimeout = timeline.indexOf('hanging:closed');
      expect(count(timeline.slice(0, firstTimeout), 'healthy:request')).toBe(20);
      // The hanging endpoint got no more attempts at once than its slots allow, however many events wait.
      expect(count(timeline.slice(0, firstTimeout), 'hanging:request')).toBeLessThanOrEqual(ISOLATION.slots);
      expect(hanging.mostOpen()).toBeLessThanOrEqual(ISOLATION.slots);

      // Nothing lost and nothing failed early: the held-back events kept their place in their schedule.
      const stored = await eventRepository().getMany(hangingEvents.map((id) => ({ id, mode: 'test' })));
      expect(stored.every((event) => event?.status === 'pending')).toBe(true);
      expect(stored.every((event) => (event?.round_attempts ?? 99) <= 1)).toBe(true);
      const delivered = await eventRepository().getMany(healthyEvents.map((id) => ({ id, mode: 'test' })));
      expect(delivered.map((event) => event?.status)).toEqual(healthyEvents.map(() => 'delivered'));
    },
    // Two heavy steps besides the wait: writing the 620 events, reading them back.
    timeoutForSteps(2, WEBHOOK_TIMEOUT_MS),
  );
});

describe('one merchant’s backlog beside another’s new webhooks, through the local stack', () => {
  it(
    'hands the other merchant’s webhooks out ahead of the backlog (the events queue is a fair queue)',
    async () => {
      await stack.issueKey('backlogged-co', 'test');
      await stack.issueKey('quiet-co', 'test');
      const timeline: string[] = [];
      const backlogged = await endpoint('backlogged', timeline);
      const quiet = await endpoint('quiet', timeline);
      const backlog = await canceledLinkEvents('backlogged-co', backlogged.url, 300);
      const fresh = await canceledLinkEvents('quiet-co', quiet.url, 20);
      handouts = timeline;

      await queueEvents(sqsClient(), config().EVENTS_QUEUE_URL, 'backlogged-co', backlog);
      await queueEvents(sqsClient(), config().EVENTS_QUEUE_URL, 'quiet-co', fresh);
      timeline.push('quiet:queued');
      await eventually(() => count(timeline, 'backlogged:request') === 300, {
        what: 'the backlog of 300 webhooks delivered',
      });
      await eventually(() => count(timeline, 'quiet:request') === 20, {
        what: 'the quiet merchant’s 20 webhooks delivered',
      });

      // The consumers take the backlog while the test is still queueing it, so what counts is what was left of it
      // once the quiet merchant's webhooks were queued behind it: in arrival order they would wait for all of
      // that. Fairly, the backlog counts as noisy (more than 30 of its messages in flight, and all of the recent
      // processing time), so every receive served after that takes the quiet merchant's webhooks first. Only
      // receives already under way when they were queued can hand out backlog before the last of them: at most
      // one per consumer (a consumer receives only between invocations), a batch each. The order checked is the
      // queue's hand-out order, which is what the fair queue decides; how soon the quiet webhooks then reach
      // their endpoint depends on the consumers' speed (a new endpoint, not yet known healthy, takes its attempts
      // a slot at a time: docs/webhooks.md, "Isolation"), which the waits above cover.
      const [delivery] = queueConsumers;
      const receivesUnderWay = (delivery?.batchSize ?? 0) * (delivery?.maxConcurrency ?? 0);
      const queued = timeline.indexOf('quiet:queued');
      const backlogLeft = 300 - count(timeline.slice(0, queued), 'handout:backlogged-co:test');
      expect(backlogLeft, 'the backlog still longer than the receives under way').toBeGreaterThan(
        receivesUnderWay,
      );
      // Where the 20th of the quiet merchant's webhooks was handed out.
      const quietHandouts = timeline.flatMap((entry, index) =>
        entry === 'handout:quiet-co:test' ? [index] : [],
      );
      const allQuietHandedOut = quietHandouts[19] ?? -1;
      expect(
        count(timeline.slice(queued, allQuietHandedOut), 'handout:backlogged-co:test'),
      ).toBeLessThanOrEqual(receivesUnderWay);
    },
    // A heavy step besides the two waits: writing the 320 events.
    timeoutForSteps(1, 0, 0),
  );
});

describe('a compressed delivery pipeline (1 s timeout, 1 s waits)', () => {
  let harness: DeliveryHarness;
  const attemptTimeoutMs = 1_000;
  const isolation = {
    ...ISOLATION,
    // As deployed, a slot's lease outlasts the attempt's timeout.
    slotLeaseMs: attemptTimeoutMs + 1_000,
    deferBaseMs: 1_000,
    deferMaxMs: 2_000,
    localWaitMs: 100,
    cacheMs: 0,
  };
  beforeAll(async () => {
    harness = await startDeliveryHarness({ isolation, attemptTimeoutMs });
  });
  afterAll(async () => {
    await harness.stop();
  });
  /**
   * The four hanging attempts take the two slots twice, each round an attempt's timeout and its retry's 1 s
   * queue delay; an event held back meanwhile waits at most `deferMaxMs` after the last of them.
   */
  const recoveryBoundMs = (4 / isolation.slots) * (attemptTimeoutMs + 1_000) + isolation.deferMaxMs;

  it(
    'delivers the events it held back once the endpoint recovers, each failed only by its own attempts',
    async () => {
      await stack.issueKey('recovering-co', 'test');
      const timeline: string[] = [];
      const recovering = await endpoint('recovering', timeline, (_, index) => (index < 4 ? 'hang' : 200));
      const events = await canceledLinkEvents('recovering-co', recovering.url, 30);

      await queueEvents(harness.sqs, harness.queueUrl, 'recovering-co', events);
      const stored = await eventually(
        async () => {
          const read = await eventRepository().getMany(events.map((id) => ({ id, mode: 'test' })));
          return read.every((event) => event?.status === 'delivered') && read;
        },
        { withinMs: recoveryBoundMs, what: 'every held-back event delivered' },
      );

      // Every event once, the four that hung once more (a copy SQS hands out twice may add one: at-least-once).
      expect(count(timeline, 'recovering:request')).toBeGreaterThanOrEqual(30 + 4);
      expect(recovering.mostOpen()).toBeLessThanOrEqual(isolation.slots);
      // The four that hung failed once each and succeeded on their own retry; every other event went out once
      // (a loaded machine may make an answer miss the 1 s timeout: such an event shows its own failure).
      const failures = stored.map(
        (event) => event?.attempts.filter((attempt) => attempt.status_code !== 200).length ?? 0,
      );
      expect(failures.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(4);
      for (const [index, event] of stored.entries()) {
        expect(event?.attempts.length).toBe((failures[index] ?? 0) + 1);
        expect(event?.attempts.at(-1)?.status_code).toBe(200);
      }
    },
    timeoutFor(recoveryBoundMs),
  );

  it(
    'keeps one tenant’s slots and failures away from another tenant posting to the same server',
    async () => {
      await stack.issueKey('noisy-co', 'test');
      await stack.issueKey('quiet-co', 'test');
      const timeline: string[] = [];
      const server = await endpoint('shared', timeline, (path) => (path === '/hang' ? 'hang' : 200));
      const noisy = await canceledLinkEvents('noisy-co', `${server.base}/hang`, 6);
      const quiet = await canceledLinkEvents('quiet-co', `${server.base}/ok`, 6);
      const message = (id: string) => JSON.stringify({ event_id: id, mode: 'test', committed: true });
      // The noisy tenant's attempts hang until the test releases them, so its slots are held throughout;
      // held-back events are kept here rather than queued.
      const deferred: string[] = [];
      const deps = {
        ...harness.deps,
        sender: new HttpWebhookSender({ allowPrivateTargets: true, timeoutMs: 60_000 }),
        queue: { publish: async (event: { id: string }) => void deferred.push(event.id) },
        isolation: { ...isolation, slotLeaseMs: 120_000 },
      };
      const handler = deliveryHandler(() => deps);

      const noisyRun = handler(sqsEvent(noisy.map(message)), lambdaContext('deliver-webhook', 30_000));
      const noisyEndpoint = endpointOf('noisy-co', 'test', `${server.base}/hang`);
      await eventually(
        async () => {
          const [health] = await endpointHealthStore().getMany([noisyEndpoint]);
          return health?.slots.filter((lease) => lease > Date.now()).length === isolation.slots;
        },
        { what: 'the noisy tenant’s slots all taken' },
      );
      const quietResult = await handler(
        sqsEvent(quiet.map(message)),
        lambdaContext('deliver-webhook', 30_000),
      );

      expect(quietResult.batchItemFailures).toEqual([]);
      expect(server.stillOpen()).toBe(isolation.slots);
      const quietEvents = await eventRepository().getMany(quiet.map((id) => ({ id, mode: 'test' })));
      expect(quietEvents.map((event) => [event?.status, event?.attempts.length])).toEqual(
        quiet.map(() => ['delivered', 1]),
      );
      const [quietHealth] = await endpointHealthStore().getMany([
        endpointOf('quiet-co', 'test', `${server.base}/ok`),
      ]);
      expect(quietHealth).toMatchObject({ failures: 0, slots: [] });

      // Every noisy event but the slots' was held back before the slots' attempts end.
      await eventually(() => new Set(deferred).size === noisy.length - isolation.slots, {
        what: 'every noisy event but the slots’ held back',
      });
      server.release();
      await noisyRun;
      const noisyEvents = await eventRepository().getMany(noisy.map((id) => ({ id, mode: 'test' })));
      expect(noisyEvents.map((event) => event?.attempts.length).sort()).toEqual([0, 0, 0, 0, 1, 1]);
      expect(noisyEvents.every((event) => event?.status === 'pending')).toBe(true);
      expect(new Set(deferred)).toEqual(new Set(noisy));
      const [noisyHealth] = await endpointHealthStore().getMany([noisyEndpoint]);
      expect(noisyHealth?.failures).toBe(isolation.slots);
      const [quietAfter] = await endpointHealthStore().getMany([
        endpointOf('quiet-co', 'test', `${server.base}/ok`),
      ]);
      expect(quietAfter?.failures).toBe(0);
    },
    timeoutFor(0, 0),
  );
});

describe('the shared endpoint health in DynamoDB', () => {
  it('hands each slot to one attempt at a time and keeps a failed probe’s slot for its pause', async () => {
    const store = endpointHealthStore();
    const probed = endpointOf('probed-co', 'test', 'https://hooks.probed.example');
    const now = Date.now();
    expect(await store.claimSlot(probed, 0, now + 20_000, now)).toMatchObject({ slots: [now + 20_000] });
    expect(await store.claimSlot(probed, 0, now + 21_000, now)).toBeUndefined();

    const failed = await store.recordAnswer(probed, false, 0, {
      slot: 0,
      lease: now + 20_000,
      pauseUntil: now + 60_000,
    });
    expect(failed).toMatchObject({ failures: 1, slots: [now + 60_000] });
    expect(await store.claimSlot(probed, 0, now + 20_000, now + 1_000)).toBeUndefined();

    const recovered = await store.claimSlot(probed, 0, now + 80_000, now + 60_000);
    expect(recovered).toBeDefined();
    const answered = await store.recordAnswer(probed, true, now + 120_000, { slot: 0, lease: now + 80_000 });
    expect(answered).toEqual({ healthyUntil: now + 120_000, failures: 0, slots: [] });
  });
});
