import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  paymentRepository,
  pspConnectionRepository,
  sandboxSessionStore,
} from '../../functions/dependencies.ts';
import { claimTrial, DOWN_FOR_MS, FAILURES_BEFORE_DOWN } from '../../functions/domain/connection-health.ts';
import { newPaymentId, type Payment, settle, startedPayment } from '../../functions/domain/payment.ts';
import { MAX_SESSIONS_PER_WINDOW } from '../../functions/domain/session-budgets.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** A fresh account with a key and sandbox connections simulating what is asked, in that order. */
async function account(name: string, simulations: ('ok' | 'fail' | 'timeout')[]) {
  const key: IssuedApiKey = await stack.issueKey(name, 'test');
  const connections = [];
  for (const [index, simulate] of simulations.entries()) {
    connections.push(
      await addConnection({ account: name, mode: 'test', provider: 'sandbox', name: `S${index}`, simulate }),
    );
  }
  return { key, connections };
}

describe('failover at checkout', () => {
  it('opens the session at the next connection when the first fails, and records the failover as a failed payment', async () => {
    const { key, connections } = await account('failover-fail', ['fail', 'ok']);
    const link = await createLink(stack, key.api_key);
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    const session = (await storedLink(link.id)).psp_session!;
    expect(session.connection_id).toBe(connections[1]?.id);
    expect(page.text).toContain(session.url);

    const payments = await paymentRepository().listOfLink(link.id, 'test');
    expect(
      payments.map((payment) => [payment.connection_id, payment.status, payment.failure?.code ?? null]),
    ).toEqual([
      [connections[1]?.id, 'pending', null],
      [connections[0]?.id, 'failed', 'psp_unavailable'],
    ]);
    expect(payments[0]?.id).toBe(session.payment_id);
    const health = await pspConnectionRepository().get(connections[0]?.id as string);
    expect(health?.health.consecutive_failures).toBe(1);
  });

  it('records the decision on every attempt, each naming the failed attempts of the opening before it', async () => {
    const { key, connections } = await account('failover-decision', ['fail', 'fail', 'ok']);
    const [a, b, c] = connections.map((connection) => connection.id);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);

    const listed = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key });
    expectDocumented('get', '/v1/payment-links/{id}/payments', listed);
    const [opened, second, first] = listed.body.data;
    expect([first.connection_id, second.connection_id, opened.connection_id]).toEqual([a, b, c]);
    const decision = { strategy: 'enabled', rule: null, recovery: false };
    expect(first.routing).toMatchObject({ ...decision, chosen: a });
    expect(first.routing.tried).toBeUndefined();
    const triedA = { connection_id: a, payment_id: first.id, outcome: 'unavailable' };
    expect(second.routing).toMatchObject({ ...decision, chosen: b, tried: [triedA] });
    const triedB = { connection_id: b, payment_id: second.id, outcome: 'unavailable' };
    expect(opened.routing).toMatchObject({ ...decision, chosen: c, tried: [triedA, triedB] });
    // One decision: every attempt records the same candidates, in the same order.
    expect(second.routing.candidates).toEqual(first.routing.candidates);
    expect(opened.routing.candidates).toEqual(first.routing.candidates);
  });

  it('moves on when a connection gives no answer within the PSP call bound', async () => {
    const { key, connections } = await account('failover-timeout', ['timeout', 'ok']);
    const link = await createLink(stack, key.api_key);
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(connections[1]?.id);
    const [, failed] = await paymentRepository().listOfLink(link.id, 'test');
    expect(failed).toMatchObject({ connection_id: connections[0]?.id, status: 'failed' });
  });

  it('shows the error page (503) only when every connection fails, and the link stays open', async () => {
    const { key } = await account('failover-all', ['fail', 'fail']);
    const link = await createLink(stack, key.api_key);
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(503);
    expect(page.text).toContain('Payment is not available right now');
    expect((await storedLink(link.id)).status).toBe('open');
    expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(2);
  });

  it(`skips a connection that failed ${FAILURES_BEFORE_DOWN} times in a row, for every instance, then gives it one trial`, async () => {
    const { key, connections } = await account('failover-down', ['fail', 'ok']);
    const [failing] = connections;
    let lastVisit = 0;
    for (let visit = 0; visit < FAILURES_BEFORE_DOWN; visit++) {
      const link = await createLink(stack, key.api_key);
      lastVisit = Date.now();
      await navigate(link.checkout_url);
    }
    const down = await pspConnectionRepository().get(failing?.id as string);
    expect(down?.health.consecutive_failures).toBe(FAILURES_BEFORE_DOWN);
    // Down for DOWN_FOR_MS from the last failure, which happened during the last visit.
    expect(Date.parse(down?.health.down_until as string)).toBeGreaterThanOrEqual(lastVisit + DOWN_FOR_MS);

    const skipped = await createLink(stack, key.api_key);
    await navigate(skipped.checkout_url);
    const attempts = await paymentRepository().listOfLink(skipped.id, 'test');
    expect(attempts.map((payment) => payment.connection_id)).toEqual([connections[1]?.id]);

    // Down time over: of two instances that both see it, exactly one wins the trial.
    await pspConnectionRepository().updateHealth(failing!, (health) => ({
      ...health,
      down_until: new Date(Date.now() - 1).toISOString(),
      revision: health.revision + 1,
    }));
    const now = new Date();
    const claims = await Promise.all(
      [1, 2].map(() =>
        pspConnectionRepository().updateHealth(failing!, (health) => claimTrial(health, now, 7_000)),
      ),
    );
    expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
  });
});

describe('choosing another payment provider (?via=)', () => {
  /** The buyer declines on the sandbox page of the link's current session. */
  const decline = async (linkId: string) => {
    const session = (await storedLink(linkId)).psp_session!;
    const declined = await fetch(`${stack.baseUrl}/sandbox/checkout/${session.id}/decline`, {
      method: 'POST',
    });
    expect(declined.status).toBe(200);
    return session;
  };

  it('is not honoured while the attempt is still payable: alternating ?via= neither ends nor opens sessions', async () => {
    const { key, connections } = await account('via-flood', ['ok', 'ok']);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const first = (await storedLink(link.id)).psp_session!;

    for (const connection of [connections[1], connections[0], connections[1], connections[0]]) {
      const page = await navigate(`${link.checkout_url}?via=${connection?.id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(first.url);
    }
    expect((await storedLink(link.id)).psp_session?.id).toBe(first.id);
    expect((await sandboxSessionStore().get(first.id))?.status).toBe('open');
    expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(1);
  });

  it('is offered after a declined attempt without naming a connection, and opens the session at another one', async () => {
    const { key, connections } = await account('via-after-decline', ['ok', 'ok']);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const declined = await decline(link.id);
    expect(declined.connection_id).toBe(connections[0]?.id);

    // Back from the PSP: a choice, and no session opened until the buyer makes it.
    const back = await navigate(`${link.checkout_url}?canceled=1`);
    expect(back.status).toBe(200);
    expect(back.text).toContain('Pay with another payment provider');
    expect(back.text).toContain(`${link.checkout_url}?via=next`);
    expect(back.text).not.toMatch(/pc_[A-Za-z0-9]/);
    expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(1);

    await navigate(`${link.checkout_url}?via=next`);
    const second = (await storedLink(link.id)).psp_session!;
    expect(second.connection_id).toBe(connections[1]?.id);
    // Asked again while that attempt is payable: the same session.
    await navigate(`${link.checkout_url}?via=next`);
    expect((await storedLink(link.id)).psp_session?.id).toBe(second.id);
  });

  it(`opens at most ${MAX_SESSIONS_PER_WINDOW} sessions per link per hour, then answers 429 with Retry-After`, async () => {
    const { key, connections } = await account('session-cap', ['ok']);
    const link = await createLink(stack, key.api_key);
    const connection = connections[0]!;
    const start = Date.now() - 30 * 60_000;
    // Earlier attempts of the last hour, each declined by the buyer.
    for (let index = 0; index < MAX_SESSIONS_PER_WINDOW; index++) {
      const at = new Date(start + index * 60_000);
      const started = startedPayment(
        {
          id: newPaymentId(new Date()),
          link: { id: link.id, account: 'session-cap', mode: 'test' },
          connection,
          amount: link.amount,
        },
        { id: `sbcs_earlier${index}`, expires_at: new Date(at.getTime() + 3_600_000).toISOString() },
        at,
      );
      await paymentRepository().save(
        settle(started, { state: 'failed', failure: null, reference: null }, at) as Payment,
      );
    }

    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(429);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(page.headers['retry-after'])).toBeLessThanOrEqual(30 * 60 + 1);
    expect((await storedLink(link.id)).psp_session).toBeNull();
    expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(MAX_SESSIONS_PER_WINDOW);
  });
});

describe('a declined attempt', () => {
  it('is a failed payment (declined), reported once by payment_link.payment_failed, and the next visit opens a fresh session', async () => {
    const { key } = await account('declines', ['ok']);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const declined = await fetch(`${stack.baseUrl}/sandbox/checkout/${session.id}/decline`, {
      method: 'POST',
    });
    expect(declined.status).toBe(200);

    const payment = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(payment).toMatchObject({ status: 'failed', failure: { code: 'declined' } });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: key.api_key });
    const failedEvents = events.body.data.filter(
      (event: { type: string }) => event.type === 'payment_link.payment_failed',
    );
    expect(failedEvents).toHaveLength(1);
    const stored = await storedLink(link.id);
    expect(stored.status).toBe('open');
    expect(stored.psp_session).toBeNull();

    await navigate(link.checkout_url);
    const fresh = (await storedLink(link.id)).psp_session!;
    expect(fresh.id).not.toBe(session.id);
  });
});
