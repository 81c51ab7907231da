import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeCounterStore, paymentRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { signInToConsole } from '../support/console.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

// Every outcome is written and read at once here, so that a few checkouts are counted within the test.
// The stack's environment, not the process's: files share their worker, and a later file's stack would inherit it.
const AT_ONCE = { OUTCOME_FLUSH_MS: '0', OUTCOME_CACHE_MS: '0' };

/**
 * The holdout, the arms' counters and `GET /v1/routing/uplift` through the local stack (docs/orchestration.md#uplift),
 * and the weighing of outcomes in the table (docs/orchestration.md#outcomes-nobody-can-poison).
 */
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ environment: AT_ONCE });
});
afterAll(() => stack?.stop());

/** A fresh account with two sandbox connections and an optimize rule over them, with `then`'s extra fields. */
async function account(name: string, then: Record<string, unknown> = {}) {
  const key = (await stack.issueKey(name, 'test')).api_key;
  const connections: PspConnection[] = [];
  for (const index of [0, 1]) {
    connections.push(
      await addConnection({ account: name, mode: 'test', provider: 'sandbox', name: `S${index}` }),
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
  return { key, ids };
}

const sandboxAction = async (sessionId: string, action: 'pay' | 'decline') => {
  const response = await fetch(`${stack.baseUrl}/sandbox/checkout/${sessionId}/${action}`, {
    method: 'POST',
  });
  expect(response.status).toBe(200);
};

/** `count` checkouts, each on a link of its own; every third is declined, the others paid. */
async function checkouts(key: string, count: number): Promise<string[]> {
  const links: string[] = [];
  for (let index = 0; index < count; index++) {
    const link = await createLink(stack, key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('no session opened');
    await sandboxAction(session.id, index % 3 === 2 ? 'decline' : 'pay');
    links.push(link.id);
  }
  return links;
}

describe('the holdout and the uplift', () => {
  it('routes the held-out checkouts by the baseline, counts each arm, and reports their difference', async () => {
    const { key: merchant, ids: connections } = await account('uplift-arms', { holdout: { share: 0.5 } });
    const links = await checkouts(merchant, 24);

    const decisions = [];
    for (const link of links) {
      const payments = await stack.request('GET', `/v1/payment-links/${link}/payments`, { key: merchant });
      decisions.push(payments.body.data[0].routing);
    }
    const held = decisions.filter((decision) => decision.holdout);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThan(24);
    // The baseline is the rule's own order: its first connection, both being up.
    expect(held.every((decision) => decision.chosen === connections[0])).toBe(true);

    const uplift = await stack.request('GET', '/v1/routing/uplift?window=7d', { key: merchant });
    expect(uplift.status).toBe(200);
    expectDocumented('get', '/v1/routing/uplift', uplift);
    expect(uplift.body).toMatchObject({
      object: 'routing_uplift',
      method: 'newcombe_wilson_95',
      window: '7d',
    });
    const [rule] = uplift.body.rules;
    expect(rule).toMatchObject({ rule: 'learn', goal: 'conversion', net: null });
    expect(rule.holdout.checkouts).toBe(held.length);
    expect(rule.learning.checkouts).toBe(24 - held.length);
    expect(rule.learning.paid + rule.holdout.paid).toBe(16);
    expect(rule.learning.decided + rule.holdout.decided).toBe(24);
    expect(rule.difference_points.low).toBeLessThanOrEqual(rule.difference_points.estimate);
    expect(uplift.body.overall.difference_points).toEqual(rule.difference_points);

    const one = await stack.request('GET', '/v1/routing/uplift?rule=learn', { key: merchant });
    expect(one.body.window).toBe('30d');
    expect(one.body.rules.map((r: { rule: string }) => r.rule)).toEqual(['learn']);
    const none = await stack.request('GET', '/v1/routing/uplift?rule=other', { key: merchant });
    expect(none.body.rules).toEqual([]);
    expect(none.body.overall.difference_points).toBeNull();
    const bad = await stack.request('GET', '/v1/routing/uplift?window=90d', { key: merchant });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/window']);
    // Another account sees none of it.
    const other = (await stack.issueKey('uplift-other', 'test')).api_key;
    expect((await stack.request('GET', '/v1/routing/uplift', { key: other })).body.rules).toEqual([]);

    const console = await signInToConsole(stack.baseUrl, 'uplift-arms', 'viewer');
    const page = await console.get('/console/overview?days=14');
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<title id="chart-uplift-title">What routing that learns earned, last 7 days',
    );
    expect(page.text).toMatch(/<caption>Learning against the holdout, last 7 days<\/caption>/);
    expect(page.text).toContain('<th scope="row">learn (conversion)</th>');
  });

  it('answers 422 with pointers for a holdout share out of range and a baseline naming no connection', async () => {
    const { key, ids } = await account('uplift-validation');
    const put = (holdout: unknown) =>
      stack.request('PUT', '/v1/routing', {
        key,
        body: {
          rules: [{ name: 'x', when: {}, then: { optimize: 'conversion', connections: ids, holdout } }],
          default: ids,
        },
      });
    const pointers = (response: { body: { errors?: { pointer: string }[] } }) =>
      (response.body.errors ?? []).map((error) => error.pointer);

    expect(pointers(await put({ share: 0.7 }))).toEqual(['/rules/0/then/holdout/share']);
    expect(pointers(await put({ share: 0.1, baseline: ['pc_NotOneOfTheirs000000000'] }))).toEqual([
      '/rules/0/then/holdout/baseline/0',
    ]);
    expect(pointers(await put({ share: 0.1, baseline: [] }))).toEqual(['/rules/0/then/holdout/baseline']);
    expect((await put({ share: '0.1' })).status).toBe(422);
    expect((await put({ share: 0, baseline: [ids[1]] })).status).toBe(200);
  });
});

describe('outcomes weighed in the table', () => {
  it("counts one client's second decline at a connection within the hour for nothing, and takes back the first", async () => {
    const { key, ids } = await account('uplift-flood', { holdout: { share: 0 } });
    const connection = ids[0] as string;
    const link = await createLink(stack, key, { reusable: true, connections: [connection] });
    for (const _ of [1, 2]) {
      // The same address each time and no cookie: the same client, as the session budgets know it.
      const page = await httpRequest(link.checkout_url, {
        headers: NAVIGATION_HEADERS,
        localAddress: '127.0.0.7',
      });
      expect(page.status).toBeLessThan(400);
      const [open] = (await paymentRepository().listOfLink(link.id, 'test')).filter(
        (payment) => payment.status === 'pending',
      );
      expect(open?.connection_id).toBe(connection);
      await sandboxAction(open?.session_id as string, 'decline');
    }

    const buckets = (await outcomeCounterStore().read(connection, { minutes: 0, hours: 0 })).filter(
      (bucket) => bucket.granularity === 'hours',
    );
    const raw = buckets.reduce((sum, bucket) => sum + bucket.counts.failed, 0);
    const weighted = buckets.reduce((sum, bucket) => sum + (bucket.weighted?.failed ?? 0), 0);
    expect([raw, weighted]).toEqual([2, 0]);
  });
});
