import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { WEBHOOK_TIMEOUT_MS } from '../../functions/domain/webhook.ts';
import { type FaultPlan, parseFaults } from '../../lib/local/faults.ts';
import { payUnderFaults } from './chaos-payments.ts';
import { type RaceReport, raceForPlaces } from './chaos-races.ts';
import { type RenewalReport, renewUnderFaults } from './chaos-renewals.ts';
import { splitRouting } from './chaos-routing.ts';
import { addConnection } from './connections.ts';
import { inParallel } from './in-parallel.ts';
import type { PageResponse } from './navigate.ts';
import type { TestStack } from './test-stack.ts';
import { FAST_SCHEDULE, type Receiver, startReceiver } from './webhooks.ts';

/**
 * The chaos run (docs/performance.md#under-faults): on a local stack started with the fault mode on, a merchant
 * creates links, buyers pay some through two sandbox connections (a 50/50 split, each the other's failover), the
 * merchant cancels some and refunds some, every request retried as a careful client does (`Idempotency-Key` on
 * every POST, `Retry-After` honoured). Then what must hold whatever the faults did is checked.
 */
export interface ChaosPlan {
  links: number;
  pays: number;
  cancels: number;
  refunds: number;
  /** Reusable links with `max_payments` that all their buyers open at once (test/support/chaos-races.ts). */
  races: number;
  /** Monthly subscriptions renewed `RENEWED_PERIODS` times by racing test clocks (test/support/chaos-renewals.ts). */
  subscriptions: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export const CHAOS_PLAN: ChaosPlan = {
  links: 300,
  pays: 150,
  cancels: 50,
  refunds: 50,
  races: 6,
  subscriptions: 8,
  concurrency: 24,
};

/** The fault mix of the run (docs/operations.md#fault-injection). */
export const CHAOS_FAULTS =
  'dynamodb:throttle:0.05,dynamodb:timeout:0.02,sqs:error:0.05,psp:5xx:0.1,psp:timeout:0.05,webhook:reset:0.1';

/** The plan of a chaos run: the mix, with `CHAOS_SEED` when set (to repeat a run), else a fresh seed. */
export function chaosFaults(seed = process.env.CHAOS_SEED): FaultPlan {
  return parseFaults(CHAOS_FAULTS, seed) as FaultPlan;
}

/**
 * The stack options of a chaos run: the faults, webhook retries compressed to 1 s each, and the outbox sweeper on
 * its timer, as deployed: it sends what a failed queue send left behind. The other sweepers find nothing due in
 * the run (no link expires, a pending payment's check is 10 minutes on, payouts are read hourly, retention counts
 * days): on their timers too, every 5 s, they made about 40% of its functions' DynamoDB calls (60 queries a list
 * each) and did nothing else but read two connections' payouts once (docs/testing.md#cpu-per-file).
 */
export const chaosStackOptions = (faults: FaultPlan) => ({
  faults,
  webhookRetryScheduleMs: FAST_SCHEDULE,
  schedules: ['outbox-sweeper'] as const,
});

/**
 * How long an event may take to reach the endpoint: every retry of the compressed schedule (a 1 s queue delay
 * each), each after an attempt that may run its full timeout.
 */
const DELIVERY_DEADLINE_MS = FAST_SCHEDULE.length * (1_000 + WEBHOOK_TIMEOUT_MS);

export interface ChaosReport {
  /** Broken guarantees, one sentence each; empty when all held. */
  violations: string[];
  /** Faults injected, by `target:kind`. */
  injected: Record<string, number>;
  /** Requests the client sent again after a 5xx or 409 `idempotency_in_progress`. */
  retried: number;
  webhooks: {
    /** Events the links' transitions committed. */
    events: number;
    /** Events that reached the endpoint at least once. */
    delivered: number;
    /** Events that reached it only after a failed attempt (a reset, a fault on the way). */
    delayed: number;
    /** Events that never reached it by the deadline. */
    lost: number;
    /** Deliveries beyond the first of an event (the same webhook-id again: at-least-once). */
    duplicates: number;
  };
  /** Links paid at the PSP whose notification was lost: pending, with the sweeper's check due. */
  awaitingSweeper: number;
  /** The places race: buyers served and payments taken, none beyond `max_payments`. */
  races: RaceReport;
  /** Subscriptions renewed under the faults: no period charged twice, no charge missing from the books. */
  renewals: RenewalReport;
  /** Seconds per phase; payments, places and renewals run at once, each timed from their common start. */
  phases: Record<string, number>;
  seconds: number;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, checked by the guarantees below
  body: any;
}

const MAX_TRIES = 30;
/** Periods each subscription of the run is advanced through. */
const RENEWED_PERIODS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every event of the run's account and mode (`GET /v1/events`, newest first), page by page. */
async function accountEvents(
  api: (method: string, path: string) => Promise<Answer>,
): Promise<{ id: string; type: string; link_id: string | null }[]> {
  const all: { id: string; type: string; link_id: string | null }[] = [];
  for (let path = '/v1/events?limit=100'; ; ) {
    const page = await api('GET', path);
    // A listing that failed must not read as "no events": every webhook of them would then look uncommitted.
    if (page.status !== 200)
      throw new Error(`GET ${path} answered ${page.status}: ${JSON.stringify(page.body)}`);
    all.push(...(page.body?.data ?? []));
    const next = page.body?.next_cursor;
    if (!next) return all;
    path = `/v1/events?limit=100&cursor=${encodeURIComponent(next)}`;
  }
}

/** Polls `check` until it holds or `deadlineMs` passes; answers whether it held. */
async function waitFor(check: () => Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

export async function runChaos(stack: TestStack, plan: ChaosPlan = CHAOS_PLAN): Promise<ChaosReport> {
  const started = Date.now();
  const phases: Record<string, number> = {};
  let lapStarted = started;
  const lap = () => {
    const seconds = Math.round((Date.now() - lapStarted) / 100) / 10;
    lapStarted = Date.now();
    return seconds;
  };
  const violations: string[] = [];
  let retried = 0;
  const account = `chaos-${randomUUID().slice(0, 8)}`;
  const key = await stack.issueKey(account, 'test');
  const receiver: Receiver = await startReceiver();

  /**
   * One request as a careful client sends it: a 5xx, a 429 or a 409 `idempotency_in_progress` is sent again after
   * `Retry-After` (1 s when absent), the same `Idempotency-Key` on every try of a POST. A 5xx without
   * `Retry-After` breaks a guarantee: every request here is safe to retry (GETs, and POSTs with a key).
   */
  async function send(
    what: string,
    attempt: () => Promise<Answer>,
    retryable = (answer: Answer) => answer.status >= 500 || answer.status === 429,
  ): Promise<Answer> {
    for (let tries = 1; ; tries++) {
      // A dropped connection (a kept-alive one the server closed, a reset) is retried like a 5xx: every request
      // here is safe to send again.
      const answer = await attempt().catch(
        (error: Error): Answer => ({ status: 0, headers: {}, body: { network_error: error.message } }),
      );
      if (answer.status === 0 && tries < MAX_TRIES) {
        retried++;
        await sleep(100);
        continue;
      }
      const inProgress = answer.status === 409 && answer.body?.code === 'idempotency_in_progress';
      if (!retryable(answer) && !inProgress) return answer;
      const retryAfter = Number(answer.headers['retry-after']);
      if (answer.status >= 500 && !Number.isFinite(retryAfter)) {
        violations.push(`${what} answered ${answer.status} without Retry-After`);
      }
      if (tries >= MAX_TRIES) return answer;
      retried++;
      await sleep(Math.min(Number.isFinite(retryAfter) ? retryAfter * 1000 : 1000, 2000));
    }
  }

  const api = (method: string, path: string, body?: unknown) => {
    const idempotencyKey = method === 'POST' ? randomUUID() : undefined;
    return send(`${method} ${path}`, async () => {
      const response = await stack.request(method, path, {
        key: key.api_key,
        ...(body !== undefined ? { body } : {}),
        ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
      });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: response.body };
    });
  };
  const page = (what: string, request: () => Promise<PageResponse>) =>
    send(what, async () => {
      const response = await request();
      return { status: response.status, headers: response.headers, body: undefined };
    });

  // The merchant's two connections, split 50/50 (each the other's failover); arranged outside any function.
  const connections = [
    await addConnection({ account, mode: 'test', provider: 'sandbox', name: 'A' }),
    await addConnection({ account, mode: 'test', provider: 'sandbox', name: 'B' }),
  ];
  const routing = await api('PUT', '/v1/routing', splitRouting(connections));
  if (routing.status !== 200) throw new Error(`PUT /v1/routing answered ${routing.status}`);

  // 1. Links: every 201's link must be stored as answered.
  const created: { id: string; checkout_url: string; amount: { value: string } }[] = [];
  await inParallel(
    Array.from({ length: plan.links }, (_, index) => index),
    plan.concurrency,
    async (index) => {
      const value = `${10 + (index % 7)}.00`;
      const answer = await api('POST', '/v1/payment-links', {
        amount: { value, currency: 'EUR' },
        description: `Chaos order ${index}`,
        webhook_url: receiver.url,
      });
      if (answer.status !== 201) {
        violations.push(`POST /v1/payment-links gave up with ${answer.status}`);
        return;
      }
      const stored = await linkRepository().get(answer.body.id, 'test');
      if (stored?.amount?.value !== value || stored.status !== 'open') {
        violations.push(`link ${answer.body.id} answered 201 but is not stored open with ${value}`);
      }
      created.push(answer.body);
    },
  );

  phases.create = lap();

  // 2. Payments, places and renewals at once, each on links of its own: their faults' waits (a PSP call that runs
  // out its budget, a Retry-After) overlap, and the stack serves all three together, as it would.
  const since = Date.now();
  /** `work`, its phase's seconds noted when it ends, from the phases' common start. */
  const timed = <T>(phase: string, work: Promise<T>) =>
    work.then((result) => {
      phases[phase] = Math.round((Date.now() - since) / 100) / 10;
      return result;
    });
  const [{ paid, awaitingSweeper }, race, renewals] = await Promise.all([
    // 2a. Payments: each link's buyer pays through the checkout, at one of the two connections.
    timed(
      'pay',
      payUnderFaults({ stack, page, violations, concurrency: plan.concurrency }, created.slice(0, plan.pays)),
    ),
    // 2b. Places: buyers racing for a reusable link's places, each from its own address.
    timed(
      'race',
      raceForPlaces(
        {
          stack,
          violations,
          page,
          firstSubnet: 100,
          createLink: async (body) => {
            const answer = await api('POST', '/v1/payment-links', {
              amount: { value: '10.00', currency: 'EUR' },
              description: 'Chaos race',
              webhook_url: receiver.url,
              ...body,
            });
            if (answer.status === 201) return answer.body;
            violations.push(`POST /v1/payment-links (race) gave up with ${answer.status}`);
            return undefined;
          },
        },
        plan.races,
      ),
    ),
    // 2c. Renewals: each subscription's periods charged by test clocks racing in the functions.
    timed(
      'renewals',
      renewUnderFaults(
        { stack, api, page, violations, webhookUrl: receiver.url },
        plan.subscriptions,
        RENEWED_PERIODS,
      ),
    ),
  ]);
  lap();

  // 3. Cancels of open links, and refunds of paid ones, at the same time.
  const toCancel = created.slice(plan.pays, plan.pays + plan.cancels);
  const toRefund = [...paid].slice(0, plan.refunds);
  const refunds: { linkId: string; refundId: string }[] = [];
  await Promise.all([
    inParallel(toCancel, Math.ceil(plan.concurrency / 2), async (link) => {
      const answer = await api('POST', `/v1/payment-links/${link.id}/cancel`);
      if (answer.status !== 200) {
        violations.push(`cancel of ${link.id} gave up with ${answer.status}`);
        return;
      }
      const stored = await linkRepository().get(link.id, 'test');
      if (stored?.status !== 'canceled')
        violations.push(`cancel of ${link.id} answered 200, link ${stored?.status}`);
    }),
    inParallel(toRefund, Math.ceil(plan.concurrency / 2), async (linkId) => {
      const answer = await api('POST', `/v1/payment-links/${linkId}/refunds`, {});
      if (answer.status !== 201) {
        violations.push(`refund of ${linkId} gave up with ${answer.status} ${answer.body?.code ?? ''}`);
        return;
      }
      refunds.push({ linkId, refundId: answer.body.id });
    }),
  ]);
  for (const { linkId, refundId } of refunds) {
    const list = await api('GET', `/v1/payment-links/${linkId}/refunds`);
    if (!list.body?.data?.some((refund: { id: string }) => refund.id === refundId)) {
      violations.push(`refund ${refundId} of ${linkId} answered 201 but is not stored`);
    }
  }

  phases.cancelAndRefund = lap();

  // 4. Money: no link paid twice, no refund beyond its payment.
  await inParallel(created, plan.concurrency, async (link) => {
    const payments = await paymentRepository().listOfLink(link.id, 'test');
    const succeeded = payments.filter((payment) => payment.status === 'succeeded');
    if (succeeded.length > 1) violations.push(`link ${link.id} was paid ${succeeded.length} times`);
    const read = await api('GET', `/v1/payment-links/${link.id}`);
    const refunded = Number(read.body?.amount_refunded?.value ?? 0);
    if (refunded > Number(link.amount.value)) {
      violations.push(`link ${link.id} refunded ${refunded} of ${link.amount.value}`);
    }
  });

  phases.checkMoney = lap();

  // 5. Webhooks: every committed event reaches the endpoint under its own webhook-id, signed, same body each time.
  // A raced link is reusable: each of its payments has its own paid event (the race counts them against
  // max_payments), so only a single-use link's transitions are each one event.
  const events: { id: string; type: string; linkId: string; transition: string }[] = [];
  await inParallel([...created, ...race.ids.map((id) => ({ id }))], plan.concurrency, async (link) => {
    const log = await api('GET', `/v1/payment-links/${link.id}/events`);
    if (log.status !== 200) violations.push(`GET the events of ${link.id} answered ${log.status}`);
    const reusable = race.ids.includes(link.id);
    for (const event of log.body?.data ?? []) {
      const transition = reusable ? event.id : `${event.type} of ${link.id}`;
      events.push({ id: event.id, type: event.type, linkId: link.id, transition });
    }
  });
  // The events of no link above (the subscriptions' links and the subscriptions themselves: created, renewed),
  // read from the account's listing, each its own transition.
  const listed = new Set(events.map((event) => event.id));
  for (const event of await accountEvents(api)) {
    if (!listed.has(event.id)) events.push({ ...event, linkId: event.link_id ?? '', transition: event.id });
  }
  const eventIds = new Set(events.map((event) => event.id));
  const deliveredIds = () =>
    new Set(receiver.received.map((webhook) => String(webhook.headers['webhook-id'])));
  // The deadline: every retry of the compressed schedule, each after an attempt that may run its full timeout.
  await waitFor(async () => [...eventIds].every((id) => deliveredIds().has(id)), DELIVERY_DEADLINE_MS);
  phases.deliver = lap();
  const verifier = new Webhook(key.webhook_secret);
  const bodies = new Map<string, string>();
  let duplicates = 0;
  for (const webhook of receiver.received) {
    const id = String(webhook.headers['webhook-id']);
    if (!eventIds.has(id))
      violations.push(`webhook ${id} (${webhookSubject(webhook.body)}) names no committed event`);
    try {
      verifier.verify(webhook.body, webhook.headers as Record<string, string>);
    } catch {
      violations.push(`webhook ${id} has no valid signature`);
    }
    const first = bodies.get(id);
    if (first === undefined) bodies.set(id, webhook.body);
    else {
      duplicates++;
      if (first !== webhook.body) violations.push(`webhook ${id} was delivered with two different bodies`);
    }
  }
  const delivered = deliveredIds();
  const lost = events.filter((event) => !delivered.has(event.id));
  for (const event of lost)
    violations.push(`event ${event.id} (${event.type} of ${event.linkId}) never arrived`);
  const perTransition = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'payment_link.paid' || event.type === 'payment_link.canceled') {
      perTransition.set(event.transition, (perTransition.get(event.transition) ?? 0) + 1);
    }
  }
  for (const [name, count] of perTransition) {
    if (count > 1) violations.push(`${name} was committed as ${count} events`);
  }
  await race.check();
  // Delayed: delivered, but after an attempt that failed (its delivery log has more than one attempt).
  let delayed = 0;
  await inParallel([...new Set(events.map((event) => event.linkId))], plan.concurrency, async (linkId) => {
    const log = await api('GET', `/v1/payment-links/${linkId}/events`);
    for (const event of log.body?.data ?? []) {
      if (delivered.has(event.id) && event.attempts.length > 1) delayed++;
    }
  });

  await receiver.close();
  return {
    violations,
    injected: { ...stack.faults?.injected },
    retried,
    webhooks: {
      events: events.length,
      delivered: delivered.size,
      delayed,
      lost: lost.length,
      duplicates,
    },
    awaitingSweeper: awaitingSweeper.length,
    races: race.report,
    renewals,
    phases,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** What a delivered webhook says it is about, for a violation's message: its type and the object's id. */
function webhookSubject(body: string): string {
  try {
    const event = JSON.parse(body);
    return `${event.type} of ${event.data?.object?.id ?? event.data?.id ?? 'no object'}, created ${event.created_at}`;
  } catch {
    return 'not JSON';
  }
}
