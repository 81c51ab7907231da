import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../functions/config.ts';
import { LOCAL_OUTCOME_TIMING } from '../../lib/local/local-stack.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { eventually } from '../support/eventually.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

// The stack's own timing, not a test's: a file before this one in the worker may have set its own.
delete process.env.OUTCOME_FLUSH_MS;
delete process.env.OUTCOME_CACHE_MS;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('outcomes on the local stack (docs/orchestration.md#observed-outcomes)', () => {
  it('flushes each outcome as it is counted and reads them at most a second old', () => {
    expect(config().OUTCOME_FLUSH_MS).toBe(LOCAL_OUTCOME_TIMING.flushEveryMs);
    expect(config().OUTCOME_CACHE_MS).toBe(LOCAL_OUTCOME_TIMING.cacheMs);
    expect(LOCAL_OUTCOME_TIMING.flushEveryMs + LOCAL_OUTCOME_TIMING.cacheMs).toBeLessThanOrEqual(1_000);
  });

  it('shows a paid checkout in what routing reads within that second, with no other payment after it', async () => {
    const account = 'local-outcome-timing';
    const key = (await stack.issueKey(account, 'test')).api_key;
    const connection = await addConnection({
      account,
      mode: 'test',
      provider: 'sandbox',
      name: 'S',
      success_rate: 1,
    });
    const link = await createLink(stack, key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('no session opened');
    const paid = await fetch(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);

    // `GET /v1/psp-connections` reads the counters through the same cache the checkout's routing reads.
    await eventually(
      async () => {
        const listed = await stack.request('GET', '/v1/psp-connections', { key });
        const ours = listed.body.data.find((entry: { id: string }) => entry.id === connection.id);
        return ours?.performance.last_hour.paid === 1;
      },
      {
        withinMs: LOCAL_OUTCOME_TIMING.flushEveryMs + LOCAL_OUTCOME_TIMING.cacheMs,
        what: 'the paid outcome counted',
      },
    );
  });
});
