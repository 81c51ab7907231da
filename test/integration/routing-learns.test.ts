import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository, pspConnectionRepository } from '../../functions/dependencies.ts';
import {
  BUILT_IN_SANDBOX_ID,
  type PspConnection,
  type Simulation,
} from '../../functions/domain/connection.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

// Every outcome is written and read at once here, so that a few dozen checkouts can be learned from in seconds.
// The stack's environment, not the process's: files share their worker, and a later file's stack would inherit it.
const AT_ONCE = { OUTCOME_FLUSH_MS: '0', OUTCOME_CACHE_MS: '0' };

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ environment: AT_ONCE });
});
afterAll(() => stack.stop());

/**
 * A fresh account with two sandbox connections paid with these probabilities (their declines with the reason
 * `simulate` gives), and an optimize rule over them.
 */
async function account(
  name: string,
  rates: [number, number],
  then: Record<string, unknown> = {},
  simulate: Simulation = 'ok',
) {
  const key = (await stack.issueKey(name, 'test')).api_key;
  const connections: PspConnection[] = [];
  for (const [index, rate] of rates.entries()) {
    connections.push(
      await addConnection({
        account: name,
        mode: 'test',
        provider: 'sandbox',
        name: `S${index}`,
        success_rate: rate,
        simulate,
      }),
    );
  }
  const ids = connections.map((connection) => connection.id);
  const put = await stack.request('PUT', '/v1/routing', {
    key,
    body: {
      rules: [{ name: 'learn', when: {}, then: { optimize: 'conversion', connections: ids, ...then } }],
      default: ids,
    },
  });
  expect(put.status).toBe(200);
  return { key, connections };
}

/** A buyer's browser on the checkout page: it keeps the cookie the page sets, as a browser does. */
function buyer(localAddress = '127.0.0.1') {
  let cookie: string | undefined;
  return {
    get payment() {
      return cookie?.split('=')[1];
    },
    async visit(url: string) {
      const page = await httpRequest(url, {
        headers: { ...NAVIGATION_HEADERS, ...(cookie ? { cookie } : {}) },
        localAddress,
      });
      const set = ([] as string[]).concat(page.headers['set-cookie'] ?? [])[0];
      if (set) cookie = set.split(';')[0];
      return page;
    },
  };
}

const sandboxAction = async (sessionId: string, action: 'pay' | 'decline') => {
  const response = await fetch(`${stack.baseUrl}/sandbox/checkout/${sessionId}/${action}`, {
    method: 'POST',
  });
  expect(response.status).toBe(200);
};

describe('optimize: conversion', () => {
  it('sends most later sessions to the connection whose sessions are paid, and explains each choice', async () => {
    const { key, connections } = await account('learns-conversion', [0.2, 0.9]);
    const [, good] = connections as [PspConnection, PspConnection];
    const chosen: string[] = [];
    let lastLink = '';
    for (let index = 0; index < 60; index++) {
      const link = await createLink(stack, key);
      await navigate(link.checkout_url);
      const session = (await storedLink(link.id)).psp_session;
      if (!session) throw new Error('no session opened');
      chosen.push(session.connection_id);
      await sandboxAction(session.id, 'pay');
      lastLink = link.id;
    }
    const later = chosen.slice(-20);
    expect(later.filter((id) => id === good.id).length).toBeGreaterThanOrEqual(14);

    const payments = await stack.request('GET', `/v1/payment-links/${lastLink}/payments`, { key });
    const routing = payments.body.data[0].routing;
    expect(routing).toMatchObject({ rule: 'learn', strategy: 'conversion', recovery: false });
    expect(
      routing.candidates.map((candidate: { connection: string }) => candidate.connection).sort(),
    ).toEqual(connections.map((connection) => connection.id).sort());
    expect(routing.chosen).toBe(chosen.at(-1));

    const listed = await stack.request('GET', '/v1/psp-connections', { key });
    const summary = listed.body.data.find(
      (connection: { id: string }) => connection.id === good.id,
    ).performance;
    expect(summary.last_hour.opened).toBeGreaterThan(0);
    expect(summary.last_24h.paid).toBeGreaterThan(0);

    const bySegment = await stack.request('GET', `/v1/psp-connections/${good.id}/performance?currency=EUR`, {
      key,
    });
    expect(bySegment.status).toBe(200);
    expectDocumented('get', '/v1/psp-connections/{id}/performance', bySegment);
    expectDocumented('get', '/v1/psp-connections', listed);
    expectDocumented('get', '/v1/payment-links/{id}/payments', payments);
    expect(bySegment.body.segments[0]).toMatchObject({
      segment: { currency: 'EUR', payment_method: 'any', amount_band: '10-100' },
    });
    expect(bySegment.body.segments[0].last_hour.opened).toBe(summary.last_hour.opened);
    const none = await stack.request('GET', `/v1/psp-connections/${good.id}/performance?currency=USD`, {
      key,
    });
    expect(none.body.segments).toEqual([]);
    const bad = await stack.request('GET', `/v1/psp-connections/${good.id}/performance?currency=XXX`, {
      key,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/currency']);
    const foreign = await stack.request('GET', '/v1/psp-connections/pc_NotOneOfTheirs000000000/performance', {
      key,
    });
    expect(foreign.status).toBe(404);
  });
});

describe('recovery after a decline', () => {
  it('opens the next connection at once when the buyer comes back, once per buyer, then offers the choice', async () => {
    const { key, connections } = await account('learns-recovery', [1, 1]);
    const link = await createLink(stack, key);
    await navigate(link.checkout_url);
    const first = (await storedLink(link.id)).psp_session;
    if (!first) throw new Error('no session opened');
    await sandboxAction(first.id, 'decline');

    const back = await navigate(`${link.checkout_url}?canceled=1`);
    expect(back.text).not.toContain('Pay with another payment provider');
    const second = (await storedLink(link.id)).psp_session;
    expect(second?.connection_id).not.toBe(first.connection_id);
    expect(connections.map((connection) => connection.id)).toContain(second?.connection_id);
    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key });
    expectDocumented('get', '/v1/payment-links/{id}/payments', payments);
    // The recovery names the declined payment it recovers.
    expect(payments.body.data[0].routing).toMatchObject({ recovery: true, recovers: first.payment_id });
    expect(payments.body.data[1].routing.recovers).toBeUndefined();
    // One payable session per link: the declined one is over, the new one is the only one open.
    expect(
      payments.body.data.filter((payment: { status: string }) => payment.status === 'pending'),
    ).toHaveLength(1);

    await sandboxAction(second?.id as string, 'decline');
    const again = await navigate(`${link.checkout_url}?canceled=1`);
    expect(again.text).toContain('Pay with another payment provider');
    expect(
      (await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key })).body.data,
    ).toHaveLength(2);
  });

  it('re-routes after a soft decline and never after a hard one, whose failure says its class', async () => {
    for (const [simulate, code, cls] of [
      ['decline_soft', 'insufficient_funds', 'soft'],
      ['decline_hard', 'expired_card', 'hard'],
    ] as const) {
      const { key } = await account(`learns-${simulate}`, [1, 1], {}, simulate);
      const link = await createLink(stack, key);
      await navigate(link.checkout_url);
      const first = (await storedLink(link.id)).psp_session;
      await sandboxAction(first?.id as string, 'decline');
      const back = await navigate(`${link.checkout_url}?canceled=1`);
      const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key });
      expectDocumented('get', '/v1/payment-links/{id}/payments', payments);
      const declined = payments.body.data.find((payment: { id: string }) => payment.id === first?.payment_id);
      expect(declined.failure, simulate).toMatchObject({ code, class: cls });
      if (cls === 'soft') {
        expect(payments.body.data).toHaveLength(2);
        expect(payments.body.data[0].routing).toMatchObject({ recovery: true, recovers: first?.payment_id });
      } else {
        // Not re-routed: the buyer is offered the choice, no session is opened for them.
        expect(back.text).toContain('Pay with another payment provider');
        expect(payments.body.data).toHaveLength(1);
      }
    }
  });

  it("on a reusable link, recovers each buyer once, as their cookie names them, and never touches another's session", async () => {
    const { key } = await account('learns-reusable', [1, 1]);
    const link = await createLink(stack, key, { reusable: true });
    const first = buyer();
    // Buyers are told apart as the session budgets tell them: by cookie, and before it by address.
    const second = buyer('127.0.0.2');
    await first.visit(link.checkout_url);
    await second.visit(link.checkout_url);
    const firstAttempt = await paymentRepository().get(link.id, 'test', first.payment ?? '');
    const secondAttempt = await paymentRepository().get(link.id, 'test', second.payment ?? '');
    await sandboxAction(firstAttempt?.session_id as string, 'decline');

    await first.visit(`${link.checkout_url}?canceled=1`);
    const recovered = await paymentRepository().get(link.id, 'test', first.payment ?? '');
    expect(recovered?.routing).toMatchObject({ recovery: true, recovers: firstAttempt?.id });
    expect(recovered?.connection_id).not.toBe(firstAttempt?.connection_id);
    // The other buyer's attempt is theirs: still open.
    expect((await paymentRepository().get(link.id, 'test', secondAttempt?.id ?? ''))?.status).toBe('pending');

    await sandboxAction(recovered?.session_id as string, 'decline');
    const offered = await first.visit(`${link.checkout_url}?canceled=1`);
    expect(offered.text).toContain('Pay with another payment provider');
    await sandboxAction(secondAttempt?.session_id as string, 'decline');
    await second.visit(`${link.checkout_url}?canceled=1`);
    expect((await paymentRepository().get(link.id, 'test', second.payment ?? ''))?.routing?.recovery).toBe(
      true,
    );
  });

  it('keeps the offer for a rule that asks for it', async () => {
    const { key } = await account('learns-offer', [1, 1], { recovery: 'offer' });
    const link = await createLink(stack, key);
    await navigate(link.checkout_url);
    const first = (await storedLink(link.id)).psp_session;
    await sandboxAction(first?.id as string, 'decline');
    const back = await navigate(`${link.checkout_url}?canceled=1`);
    expect(back.text).toContain('Pay with another payment provider');
  });
});

describe('optimize rules in PUT /v1/routing', () => {
  it('answers 422 with pointers for an unknown goal, recovery or connection', async () => {
    const { key, connections } = await account('learns-validation', [1, 1]);
    const ids = connections.map((connection) => connection.id);
    const put = (then: unknown) =>
      stack.request('PUT', '/v1/routing', {
        key,
        body: { rules: [{ name: 'x', when: {}, then }], default: ids },
      });
    const pointers = (response: { body: { errors?: { pointer: string }[] } }) =>
      (response.body.errors ?? []).map((error) => error.pointer);
    const unknownGoal = await put({ optimize: 'speed', connections: ids });
    expect(unknownGoal.status).toBe(422);
    expect(pointers(unknownGoal).some((pointer) => pointer.startsWith('/rules/0/then'))).toBe(true);
    const badRecovery = await put({ priority: ids, recovery: 'sometimes' });
    expect(badRecovery.status).toBe(422);
    const unknownId = await put({ optimize: 'cost', connections: [ids[0], 'pc_NotOneOfTheirs000000000'] });
    expect(unknownId.status).toBe(422);
    expect(pointers(unknownId)).toEqual(['/rules/0/then/connections/1']);
    const empty = await put({ optimize: 'value', connections: [] });
    expect(pointers(empty)).toEqual(['/rules/0/then/connections']);
  });
});

describe('the built-in sandbox', () => {
  it('is not counted: it serves every test account under one id', async () => {
    const key = (await stack.issueKey('learns-builtin', 'test')).api_key;
    const link = await createLink(stack, key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    expect(session?.connection_id).toBe(BUILT_IN_SANDBOX_ID);
    await sandboxAction(session?.id as string, 'pay');
    const performance = await stack.request('GET', `/v1/psp-connections/${BUILT_IN_SANDBOX_ID}/performance`, {
      key,
    });
    expect(performance.body.segments).toEqual([]);
  });
});

describe('fees', () => {
  it('shows the fee lines of a connection', async () => {
    const { key, connections } = await account('learns-fees', [1, 1]);
    const [first] = connections as [PspConnection];
    await pspConnectionRepository().setFees(first.id, [{ percent: 1.4, fixed: 0.25, currency: 'EUR' }]);
    const listed = await stack.request('GET', '/v1/psp-connections', { key });
    expect(listed.body.data.find((connection: { id: string }) => connection.id === first.id).fees).toEqual([
      { percent: 1.4, fixed: 0.25, currency: 'EUR' },
    ]);
  });
});
