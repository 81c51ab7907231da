import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSquare, SQUARE_FAKE } from '../../functions/adapters/psp/square/test/fake.ts';
import { paymentRepository, pspConnectionRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { MIN_REPORTED_FEES } from '../../functions/domain/learned-fees.ts';
import { classified } from '../../functions/domain/payment-failure.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

/**
 * What routing learns beside paid shares (docs/orchestration.md#fees, #observed-outcomes): the fees the PSPs report,
 * which move cost routing once there are enough of them, and outages, which are not declines.
 */

// Every outcome is written and read at once here, so that each checkout sees the ones before it.
// The stack's environment, not the process's: files share their worker, and a later file's stack would inherit it.
const AT_ONCE = { OUTCOME_FLUSH_MS: '0', OUTCOME_CACHE_MS: '0' };

const FAKES = { square: SQUARE_FAKE };
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let square: FakeSquare;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false, environment: AT_ONCE } });
  ({ stack, square } = psps);
});
afterAll(() => psps?.stop());

/** A fresh account with these connections, and a rule over them (nothing held out) that optimizes `goal`. */
async function account(name: string, providers: ('square' | 'sandbox')[], goal: 'cost' | 'conversion') {
  const key = (await stack.issueKey(name, 'test')).api_key;
  const connections: PspConnection[] = [];
  for (const provider of providers) connections.push(await psps.connect(name, provider));
  const ids = connections.map((connection) => connection.id);
  const put = await stack.request('PUT', '/v1/routing', {
    key,
    body: {
      rules: [{ name: 'learn', when: {}, then: { optimize: goal, connections: ids, holdout: { share: 0 } } }],
      default: ids,
    },
  });
  expect(put.status).toBe(200);
  return { key, connections };
}

const amount = { value: '40.00', currency: 'EUR' };

/** Opens a checkout of a 40.00 EUR link (at `connection` when given, else as routing decides): its session. */
async function opened(key: string, connection?: string) {
  const link = await createLink(stack, key, { amount, ...(connection ? { connections: [connection] } : {}) });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no session opened');
  return { link, session };
}

/** The decision of a checkout routed by the rule: the connection it chose, and what it knew of each candidate. */
async function decided(key: string) {
  const { link } = await opened(key);
  const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key });
  expectDocumented('get', '/v1/payment-links/{id}/payments', payments);
  return payments.body.data[0].routing;
}

describe('cost routing on the fees the PSPs report', () => {
  it('moves to the connection that is really cheaper once enough fees are reported, although its fee lines say otherwise', async () => {
    const { key, connections } = await account('fees-reported', ['square', 'sandbox'], 'cost');
    const [atSquare, atSandbox] = connections as [PspConnection, PspConnection];
    square.notificationUrl = `${stack.baseUrl}/psp/square/notifications/${atSquare.id}`;
    // Configured, Square is the cheaper: 1% against 2%; it really takes 3% (1.20 of 40.00).
    await pspConnectionRepository().setFees(atSquare.id, [{ percent: 1, fixed: 0 }]);
    await pspConnectionRepository().setFees(atSandbox.id, [{ percent: 2, fixed: 0 }]);
    const paidAtSquare = async () => {
      const { session } = await opened(key, atSquare.id);
      await square.pay(session.id, { fees: [{ amount: 120, currency: 'EUR' }] });
    };
    for (let index = 0; index < MIN_REPORTED_FEES - 1; index++) await paidAtSquare();

    const tooFew = await decided(key);

    expect(tooFew.candidates).toMatchObject([
      { connection: atSquare.id, expected_fee: 0.4, fee_basis: 'configured' },
      { connection: atSandbox.id, expected_fee: 0.8, fee_basis: 'configured' },
    ]);
    if (!tooFew.exploration) expect(tooFew.chosen).toBe(atSquare.id);

    await paidAtSquare();
    const enough = await decided(key);

    expect(enough.candidates).toMatchObject([
      { connection: atSquare.id, expected_fee: 1.2, fee_basis: 'reported' },
      { connection: atSandbox.id, expected_fee: 0.8, fee_basis: 'configured' },
    ]);
    if (!enough.exploration) expect(enough.chosen).toBe(atSandbox.id);
    const performance = await stack.request('GET', `/v1/psp-connections/${atSquare.id}/performance`, { key });
    expectDocumented('get', '/v1/psp-connections/{id}/performance', performance);
    expect(performance.body.segments[0].reported_fees).toEqual({
      count: MIN_REPORTED_FEES,
      fee_share: 0.03,
      used: true,
    });
    expect(square.violations).toEqual([]);
  });
});

describe('outages', () => {
  it('are counted apart from declines, and do not lower the paid share routing learns', async () => {
    const { key, connections } = await account('outages-apart', ['sandbox', 'sandbox'], 'conversion');
    const [first] = connections as [PspConnection, PspConnection];
    for (let index = 0; index < 3; index++) {
      const paid = await opened(key, first.id);
      const response = await fetch(`${stack.baseUrl}/sandbox/checkout/${paid.session.id}/pay`, {
        method: 'POST',
      });
      expect(response.status).toBe(200);
      // Ended by the PSP failing, as a decline table's `outage` line reports it (no PSP's table has one yet).
      const { link, session } = await opened(key, first.id);
      const pending = await paymentRepository().get(link.id, 'test', session.payment_id);
      if (!pending) throw new Error('no payment');
      const failure = classified({ code: 'psp_unavailable', message: 'The PSP failed.' });
      const ended = { ...pending, status: 'failed' as const, failure, updated_at: new Date().toISOString() };
      await paymentRepository().save({ ...ended, version: pending.version + 1 }, pending);
    }

    const performance = await stack.request('GET', `/v1/psp-connections/${first.id}/performance`, { key });

    expectDocumented('get', '/v1/psp-connections/{id}/performance', performance);
    expect(performance.body.segments[0].last_hour).toMatchObject({
      opened: 6,
      paid: 3,
      failed: 0,
      outage: 3,
      paid_share: 1,
    });
    const decision = await decided(key);
    expect(decision.candidates[0]).toMatchObject({ connection: first.id, paid_share: 1, sessions: 3 });
  });
});
