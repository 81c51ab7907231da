import type { ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  linkRepository,
  paymentRepository,
  pspConnectionRepository,
  sandboxMandateStore,
  sandboxSessionStore,
  settlementRepository,
  subscriptionRepository,
} from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Subscription } from '../../functions/domain/subscription.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { handlerLoader, lambdaContext } from '../../lib/local/api-gateway.ts';
import { permissionAudit } from '../../lib/local/permissions.ts';
import { functions, type HandlerName, timeoutSecondsOf } from '../../lib/routes.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { signInToConsole } from '../support/console.ts';
import { httpRequest, navigate, postOurForm } from '../support/navigate.ts';
import { MONTHLY, runAt } from '../support/subscriptions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

/**
 * Every use case that opens, ends or asks about a PSP session (or refunds through the connection that took the
 * payment) reaches the session's connection. A stored connection is found by its id (a gsi1 Query), unlike the
 * built-in sandbox, so these run with stored sandbox connections, through the local stack and its IAM emulation
 * (lib/local/permissions.ts): a function missing a grant is refused there as on AWS, even where the handler
 * swallows the error, and the sandbox records whether the old session really ended.
 */

let stack: TestStack;
let acme: IssuedApiKey;
let first: PspConnection;
let second: PspConnection;

beforeAll(async () => {
  // Each scenario makes its work due and runs the sweeper itself: no timer may take that work first.
  stack = await startTestStack({ schedules: false });
  acme = await stack.issueKey('stored', 'test');
  first = await addConnection({ account: 'stored', mode: 'test', provider: 'sandbox', name: 'First' });
  second = await addConnection({ account: 'stored', mode: 'test', provider: 'sandbox', name: 'Second' });
});
afterAll(() => stack.stop());

/** The functions that reach PSP connections: those granted the PSP credentials (lib/routes.ts). */
type PspHandler = {
  [H in HandlerName]: (typeof functions)[H] extends { secrets: readonly (infer S)[] }
    ? 'psp' extends S
      ? H
      : never
    : never;
}[HandlerName];

const pspHandlers = (Object.keys(functions) as HandlerName[]).filter((handler) =>
  (functions[handler] as { secrets?: readonly string[] }).secrets?.includes('psp'),
);

/** A link of the account whose checkout page opened a session at a stored connection. */
async function linkWithSession(body: Record<string, unknown> = {}) {
  const link = await createLink(stack, acme.api_key, body);
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no session opened');
  return { link, session };
}

const sessionStatus = async (id: string) => (await sandboxSessionStore().get(id))?.status;

/** Runs a scheduled function once, as EventBridge would, with its function's permissions only. */
async function runScheduled(handler: HandlerName): Promise<unknown> {
  const invoke = (await handlerLoader()(handler)) as unknown as (
    event: ScheduledEvent,
    context: ReturnType<typeof lambdaContext>,
  ) => Promise<unknown>;
  return invoke(
    {
      version: '0',
      id: 'test',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: {},
    },
    lambdaContext(handler, timeoutSecondsOf(handler) * 1000),
  );
}

/** Moves a stored link's expiry into the past, as time would (the API refuses a past `expires_at`). */
async function makeOverdue(id: string) {
  const before = await storedLink(id);
  await linkRepository().update(before, {
    ...before,
    expires_at: new Date(Date.now() - 1000).toISOString(),
    version: before.version + 1,
  });
}

/**
 * One scenario per function that reaches PSP connections; the type makes a new such function fail to compile
 * here until it has one. Each asserts what the PSP really did.
 */
const scenarios: Record<PspHandler, () => Promise<void>> = {
  'checkout-page': async () => {
    const { link, session } = await linkWithSession();
    expect(session.connection_id).toBe(first.id);

    // The buyer declines at the first connection, comes back and asks for another provider (`?via=next`).
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/decline`, { method: 'POST' });
    await navigate(`${link.checkout_url}?via=next`);
    const chosen = (await storedLink(link.id)).psp_session;

    expect(chosen?.connection_id).toBe(second.id);
    expect(await sessionStatus(session.id)).toBe('failed');
    expect(await sessionStatus(chosen?.id as string)).toBe('open');
  },
  'update-payment-link': async () => {
    const described = await linkWithSession();
    const rescheduled = await linkWithSession({
      expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    });

    const description = await stack.request('PATCH', `/v1/payment-links/${described.link.id}`, {
      key: acme.api_key,
      body: { description: 'Order 1001, corrected' },
    });
    const earlier = await stack.request('PATCH', `/v1/payment-links/${rescheduled.link.id}`, {
      key: acme.api_key,
      body: { expires_at: new Date(Date.now() + 86_400_000).toISOString() },
    });

    expect([description.status, earlier.status]).toEqual([200, 200]);
    expect(await sessionStatus(described.session.id)).toBe('expired');
    expect(await sessionStatus(rescheduled.session.id)).toBe('expired');
    expect((await storedLink(described.link.id)).psp_session).toBeNull();
  },
  'cancel-payment-link': async () => {
    const { link, session } = await linkWithSession();

    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, {
      key: acme.api_key,
    });

    expect(canceled.status).toBe(200);
    expect(await sessionStatus(session.id)).toBe('expired');
  },
  'expire-links': async () => {
    const { link, session } = await linkWithSession();
    await makeOverdue(link.id);

    await runScheduled('expire-links');

    expect((await storedLink(link.id)).status).toBe('expired');
    expect(await sessionStatus(session.id)).toBe('expired');
  },
  'check-pending-at-psps': async () => {
    const { link, session } = await linkWithSession();
    const payment = await paymentRepository().get(link.id, 'test', session.payment_id as string);
    if (!payment) throw new Error('no payment recorded');
    await paymentRepository().save(
      { ...payment, next_check_at: new Date(Date.now() - 1000).toISOString(), version: payment.version + 1 },
      payment,
    );

    await runScheduled('check-pending-at-psps');

    // The PSP answered "still pending": the payment is asked about again later.
    const checked = await paymentRepository().get(link.id, 'test', payment.id);
    expect(checked).toMatchObject({ status: 'pending', checks: 1 });
  },
  'sweep-settlements': async () => {
    const { link, session } = await linkWithSession();
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(link.id)).status === 'paid');
    await settlementRepository().saveReading({
      connection_id: first.id,
      account: 'stored',
      mode: 'test',
      read_from: new Date(0).toISOString(),
      next_read_at: new Date(Date.now() - 1000).toISOString(),
    });

    await runScheduled('sweep-settlements');

    // The sandbox lists no payouts: its connection is looked at again a month later, not at every run.
    const [due] = await settlementRepository().dueReadings(new Date(Date.now() + 29 * 86_400_000), 100);
    expect(due).toBeUndefined();
  },
  'psp-notifications': async () => {
    const { link, session } = await linkWithSession();

    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });

    const paid = await eventually(async () => {
      const stored = await storedLink(link.id);
      return stored.status === 'paid' && stored;
    });
    expect(paid.payment?.connection_id).toBe(first.id);
  },
  'create-refund': async () => {
    const { link, session } = await linkWithSession();
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(link.id)).status === 'paid');

    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key });

    expect(refund.status).toBe(201);
    expect(refund.body.status).toBe('succeeded');
  },
  // The console cancels and refunds through the same use cases, from its own function.
  console: async () => {
    const canceled = await linkWithSession();
    const refunded = await linkWithSession();
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${refunded.session.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(refunded.link.id)).status === 'paid');
    const admin = await signInToConsole(stack.baseUrl, 'stored', 'admin');

    const cancel = await admin.post(`/console/links/${canceled.link.id}/cancel`, {});
    const refund = await admin.post(`/console/links/${refunded.link.id}/refunds`, {});

    expect([cancel.status, refund.status]).toEqual([303, 303]);
    expect(await sessionStatus(canceled.session.id)).toBe('expired');
    expect((await storedLink(refunded.link.id)).refunds.map((made) => made.status)).toEqual(['succeeded']);
  },
  'charge-subscriptions': async () => {
    const subscription = await dueSubscription();

    await runScheduled('charge-subscriptions');

    expect(await sandboxMandateStore().chargesOf(subscription.mandate.reference)).toHaveLength(1);
    expect((await subscriptionRepository().get(subscription.id, 'test'))?.periods_paid).toBe(2);
  },
  'advance-subscription': async () => {
    const subscription = await paidSubscription();

    const advanced = await stack.request(
      'POST',
      `/v1/test-helpers/subscriptions/${subscription.id}/advance`,
      {
        key: acme.api_key,
      },
    );

    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ periods_paid: 2, mandate: { connection_id: first.id } });
    expect(await sandboxMandateStore().chargesOf(subscription.mandate.reference)).toHaveLength(1);
  },
  'cancel-subscription': async () => {
    const { subscription, updateLinkId, session } = await pastDueWithUpdateSession();

    const canceled = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
      key: acme.api_key,
    });

    expect(canceled.body).toMatchObject({ status: 'canceled' });
    expect((await storedLink(updateLinkId)).status).toBe('canceled');
    expect(await sessionStatus(session)).toBe('expired');
  },
  'subscription-cancel-page': async () => {
    const { subscription, updateLinkId, session } = await pastDueWithUpdateSession();
    const made = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel-link`, {
      key: acme.api_key,
    });

    const page = await postOurForm(made.body.url, '');

    expect(page.status).toBe(200);
    expect((await storedLink(updateLinkId)).status).toBe('canceled');
    expect(await sessionStatus(session)).toBe('expired');
  },
};

/** A subscription started by a subscription link paid at the first stored connection. */
async function paidSubscription(): Promise<Subscription> {
  const { link, session } = await linkWithSession({ recurring: { interval: 'month', interval_count: 1 } });
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });
  const [found] = await eventually(async () => {
    const page = await subscriptionRepository().list({
      account: 'stored',
      mode: 'test',
      limit: 10,
      linkId: link.id,
    });
    return page.subscriptions.length > 0 && page.subscriptions;
  });
  return found as Subscription;
}

/**
 * A subscription declined hard at its mandate's own stored connection, past due, whose update link's checkout
 * opened a session at a stored connection.
 */
async function pastDueWithUpdateSession() {
  const declining = await addConnection({
    account: 'stored',
    mode: 'test',
    provider: 'sandbox',
    name: 'Declines renewals',
    simulate: 'renewal_hard_decline',
  });
  const { link, session } = await linkWithSession({ recurring: MONTHLY, connections: [declining.id] });
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });
  const [subscription] = await eventually(async () => {
    const page = await subscriptionRepository().list({
      account: 'stored',
      mode: 'test',
      limit: 1,
      linkId: link.id,
    });
    return page.subscriptions.length > 0 && page.subscriptions;
  });
  const declined = await runAt(
    subscription as Subscription,
    (subscription as Subscription).current_period_end,
  );
  const updateLinkId = declined?.dunning?.update_link_id as string;
  await navigate(`${stack.checkoutBase}/${updateLinkId}`);
  const opened = (await storedLink(updateLinkId)).psp_session;
  if (!opened) throw new Error('no session opened on the update link');
  return { subscription: subscription as Subscription, updateLinkId, session: opened.id };
}

/** A paid subscription whose next charge is due now, as time would make it (the sweeper charges what is due). */
async function dueSubscription(): Promise<Subscription> {
  const before = await paidSubscription();
  const due = new Date(Date.now() - 1000).toISOString();
  const after = { ...before, due_at: due, version: before.version + 1 };
  await subscriptionRepository().commit({ before, after, events: [] });
  return after;
}

describe('use cases that reach a stored PSP connection, with their functions’ grants only', () => {
  it('has a scenario for every function granted the PSP credentials', () => {
    expect(Object.keys(scenarios).sort()).toEqual([...pspHandlers].sort());
  });

  for (const handler of Object.keys(scenarios) as PspHandler[]) {
    it(`${handler}: does its PSP work through a stored connection, and the emulated IAM refuses nothing`, async () => {
      const refusedBefore = permissionAudit.refused.length;

      await scenarios[handler]();

      expect(permissionAudit.refused.slice(refusedBefore)).toEqual([]);
    });
  }
});

describe('a session its PSP could not end is never forgotten', () => {
  /** A link with a session at a connection that stops being reachable; `restore` brings it back. */
  async function unreachableSession(body: Record<string, unknown> = {}) {
    const connection = await addConnection({
      account: 'stored',
      mode: 'test',
      provider: 'sandbox',
      name: 'Going away',
    });
    const { link, session } = await linkWithSession({ ...body, connections: [connection.id] });
    await pspConnectionRepository().remove(connection.id);
    return {
      link,
      session,
      restore: () => pspConnectionRepository().create(connection),
    };
  }

  it('PATCH is stored while the PSP cannot end the session; the checkout shows that session, and opens another only once it ended', async () => {
    const { link, session, restore } = await unreachableSession();

    const patched = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: acme.api_key,
      body: { description: 'Order 1001, corrected' },
    });

    expect(patched.status).toBe(200);
    expect(await storedLink(link.id)).toMatchObject({
      description: 'Order 1001, corrected',
      psp_session: null,
    });
    expect(await sessionStatus(session.id)).toBe('open');
    const shown = await navigate(link.checkout_url);
    expect(shown.text).toContain(session.url);
    expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(1);

    await restore();
    await navigate(link.checkout_url);

    expect(await sessionStatus(session.id)).toBe('expired');
    expect((await storedLink(link.id)).psp_session?.id).not.toBe(session.id);
    expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(2);
  });

  it('cancel answers 503 with Retry-After and the link stays open with its session; a retry cancels', async () => {
    const { link, session, restore } = await unreachableSession();

    const refused = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acme.api_key });

    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await storedLink(link.id)).toMatchObject({ status: 'open', psp_session: session });

    await restore();
    const retried = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acme.api_key });

    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('canceled');
    expect(await sessionStatus(session.id)).toBe('expired');
  });

  it('the expiry sweeper leaves the link and its session for its next run, which expires both', async () => {
    const { link, session, restore } = await unreachableSession();
    await makeOverdue(link.id);

    await runScheduled('expire-links');

    expect(await storedLink(link.id)).toMatchObject({ status: 'open', psp_session: session });
    expect(await sessionStatus(session.id)).toBe('open');

    await restore();
    await runScheduled('expire-links');

    expect((await storedLink(link.id)).status).toBe('expired');
    expect(await sessionStatus(session.id)).toBe('expired');
  });
});
