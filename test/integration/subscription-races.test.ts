import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from '../../functions/domain/subscription.ts';
import type { HoldsMandates, MandateCharge, Psp } from '../../functions/ports/psp.ts';
import { subscriptionCharges } from '../../functions/psp-dependencies.ts';
import { type ChargeDependencies, runDue } from '../../functions/use-cases/subscription-charges.ts';
import { eventually } from '../support/eventually.ts';
import { chargesOf, days, MONTHLY, runAt, stored, subscriptionWorld } from '../support/subscriptions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * Subscriptions whose writers interleave (docs/subscriptions.md#charging-once): a merchant's or a buyer's request
 * lands while a renewal is at the PSP. Each test holds the sweeper's charge at the PSP's door (`heldCharge`), makes
 * the other request, then lets the PSP answer.
 */

let stack: TestStack;
let receiver: Receiver;
const { account, subscribe, webhooksOf } = subscriptionWorld(() => ({ stack, receiver }), 'subs-races');

beforeAll(async () => {
  stack = await startTestStack({ schedules: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.stop();
});

/** The sweeper's use case at `at`, whose first charge sent to the PSP waits for `meanwhile` before it is sent. */
function heldCharge(at: string, meanwhile: () => Promise<void>): ChargeDependencies {
  const deps = { ...subscriptionCharges(), now: () => new Date(at) };
  let held = false;
  const { psps } = deps;
  const hold = (psp: Psp & HoldsMandates) => async (charge: MandateCharge) => {
    if (!held) {
      held = true;
      await meanwhile();
    }
    return psp.chargeMandate(charge);
  };
  return {
    ...deps,
    psps: {
      connection: (id) => psps.connection(id),
      adapter: async (connection) => {
        const psp = (await psps.adapter(connection)) as Psp & HoldsMandates;
        return new Proxy(psp, {
          get: (target, property) => {
            if (property === 'chargeMandate') return hold(target);
            const value = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      },
    },
  };
}

const runHeld = (subscription: Subscription, at: string, meanwhile: () => Promise<void>) =>
  runDue(heldCharge(at, meanwhile), subscription, new Date(at));

describe('a cancel at the period end while the renewal is at the PSP', () => {
  it('cancels a subscription whose renewal was declined at once, and never retries it', async () => {
    const key = await account('renewal_soft_decline');
    const subscription = await subscribe(key.api_key, { recurring: MONTHLY });
    const due = subscription.current_period_end;

    const after = await runHeld(subscription, due, async () => {
      const asked = await stack.request('POST', `/v1/subscriptions/${subscription.id}/cancel`, {
        key: key.api_key,
        body: { at_period_end: true },
      });
      expect(asked.status).toBe(200);
    });

    expect(after).toMatchObject({ status: 'canceled', cancellation_reason: 'requested', due_at: null });
    for (const day of [1, 3, 5, 7]) await runAt(subscription, days(due, day));
    expect(await chargesOf(subscription)).toHaveLength(1);
    expect(await stored(subscription.id)).toMatchObject({ status: 'canceled' });
    await eventually(() =>
      webhooksOf(key, subscription.id).some((event) => event.type === 'subscription.canceled'),
    );
  });
});
