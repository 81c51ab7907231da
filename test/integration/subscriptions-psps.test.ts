import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';
import { sandboxMandateStore } from '../../functions/dependencies.ts';
import { type Amount, fromMinorUnits } from '../../functions/domain/money.ts';
import type { Subscription } from '../../functions/domain/subscription.ts';
import type { PspDescriptor } from '../../functions/ports/psp-descriptor.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { navigate } from '../support/navigate.ts';
import {
  BUYER,
  type ConformanceFake,
  type ConformanceFixture,
  conformanceModuleOf,
} from '../support/psp-conformance.ts';
import type { PspFakeDefinition } from '../support/psp-fakes.ts';
import { type PspMerchant, startPspMerchant } from '../support/psp-stack.ts';
import { days, MONTHLY, payOnSandbox, runAt, stored } from '../support/subscriptions.ts';

/**
 * Subscriptions through each PSP that holds mandates, on the local stack (docs/subscriptions.md): a stored
 * connection to its fake (the conformance fixture's, test/support/psp-conformance.ts), the buyer paying on its page,
 * and the charge sweeper run at the times each test chooses (the injected clock, `runAt`). A monthly subscription
 * renews three times, one charge per period at the PSP; a soft decline recovers on its second retry; a hard decline
 * goes past due and recovers through the update link; canceled at period end, it is charged nothing more.
 */

type LinkToPay = { id: string; checkout_url: string };
type Renewal = 'succeed' | 'soft_decline' | 'hard_decline';

/** A merchant of one PSP that holds mandates, and what its buyer and the PSP do. */
interface MandateWorld {
  merchant: PspMerchant<Record<string, PspFakeDefinition>>;
  currency: string;
  /** The buyer pays the link on the PSP's page, and the PSP tells the service. */
  pay(link: LinkToPay): Promise<void>;
  /** The next charge on the subscription's mandate is answered so. */
  renews(subscription: Subscription, outcome: Renewal): Promise<void>;
  /** What the PSP charged on the subscription's mandate so far (not its first period's session). */
  charges(subscription: Subscription): Promise<{ amount: Amount; state: string }[]>;
}

/** The sandbox is part of the stack: its page, its mandates in our table, set as a mandate's own page sets them. */
async function sandboxWorld(): Promise<MandateWorld> {
  const merchant = await startPspMerchant({}, 'subs-psps-sandbox', 'sandbox');
  return {
    merchant,
    currency: 'EUR',
    pay: (link) => payOnSandbox(merchant.psps.stack, link),
    async renews(subscription, outcome) {
      await sandboxMandateStore().update(subscription.mandate.reference, { renewals: outcome }, new Date());
    },
    async charges(subscription) {
      const charges = await sandboxMandateStore().chargesOf(subscription.mandate.reference);
      // Our table keeps them by reference: in the order they were made, as a PSP lists them.
      charges.sort((a, b) => a.created_at.localeCompare(b.created_at));
      return charges.map(({ amount, state }) => ({ amount, state }));
    },
  };
}

/** Another PSP: its conformance fixture's fake, the stack's adapter of a stored connection pointed at it. */
async function fakeWorld(descriptor: PspDescriptor): Promise<MandateWorld> {
  const { conformance } = (await import(conformanceModuleOf(descriptor).href)) as {
    conformance: ConformanceFixture;
  };
  const fake = await conformance.start();
  const mandates = fake.mandates;
  if (!mandates) throw new Error(`${descriptor.id} declares holds_mandates without its fixture's mandates`);
  const definition: PspFakeDefinition = {
    provider: descriptor.id,
    credentials: fake.credentials ?? {},
    start: async () => ({ apiUrl: fake.apiUrl ?? '', stop: () => fake.stop() }),
  };
  const merchant = await startPspMerchant({ psp: definition }, `subs-psps-${descriptor.id}`, 'psp');
  return {
    merchant,
    currency: conformance.currency ?? 'EUR',
    pay: (link) => payAtFake(descriptor, fake, merchant, link),
    async renews(_, outcome) {
      if (outcome !== 'succeed') mandates.nextCharge(outcome);
    },
    charges: (subscription) => mandates.charges(subscription.mandate),
  };
}

/**
 * The buyer opens the link's checkout, pays at the fake, the fake's notification reaches the service; a PSP that
 * takes the money only when we capture sees the buyer back on our page first, which captures.
 */
async function payAtFake(
  descriptor: PspDescriptor,
  fake: ConformanceFake,
  merchant: MandateWorld['merchant'],
  link: LinkToPay,
): Promise<void> {
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error(`no session opened for ${link.id}`);
  await fake.pay(session, BUYER);
  if (descriptor.capabilities.includes('captures_later')) {
    await navigate(`${link.checkout_url}/complete?payment=${session.payment_id}`);
  }
  const notification = await fake.notification(session, 'genuine');
  await merchant.psps.stack.request('POST', `/psp/${descriptor.id}/notifications/${merchant.connection.id}`, {
    rawBody: notification.body,
    headers: notification.headers,
  });
}

const holders = PSP_DESCRIPTORS.filter((descriptor) => descriptor.capabilities.includes('holds_mandates'));

describe.each(holders.map((descriptor) => [descriptor.id, descriptor] as const))('%s', (_, descriptor) => {
  let world: MandateWorld;
  beforeAll(async () => {
    world = descriptor.id === 'sandbox' ? await sandboxWorld() : await fakeWorld(descriptor);
  });
  afterAll(async () => {
    await world?.merchant.stop();
  });

  const tenEuros = () => ({ value: '10.00', currency: world.currency });
  const api = (method: string, path: string, body?: Record<string, unknown>) =>
    world.merchant.psps.stack.request(method, path, { key: world.merchant.key.api_key, body });

  /** The buyer subscribes monthly at 10.00 through the PSP: the subscription it started. */
  async function subscribe(): Promise<Subscription> {
    const { psps, key } = world.merchant;
    const link = await createLink(psps.stack, key.api_key, { amount: tenEuros(), recurring: MONTHLY });
    await world.pay(link);
    const listed = await eventually(async () => {
      const page = await api('GET', `/v1/subscriptions?link_id=${link.id}`);
      return page.body.data?.length === 1 && page.body.data[0];
    });
    return stored(listed.id);
  }

  /** The sweeper at the subscription's next charge, with the PSP answering it `outcome`. */
  async function chargeDue(subscription: Subscription, at: string, outcome: Renewal = 'succeed') {
    await world.renews(subscription, outcome);
    return runAt(subscription, at);
  }

  const statesOf = async (subscription: Subscription) =>
    (await world.charges(subscription)).map((charge) => charge.state);

  it(`${descriptor.id}: a monthly subscription renews three times, one charge per period at the PSP`, async () => {
    const subscription = await subscribe();
    expect(subscription).toMatchObject({
      status: 'active',
      current_period: 1,
      mandate: { provider: descriptor.id, connection_id: world.merchant.connection.id },
    });

    let current = subscription;
    for (const period of [2, 3, 4]) {
      const renewed = await chargeDue(subscription, current.current_period_end);
      expect(renewed).toMatchObject({ status: 'active', current_period: period, periods_paid: period });
      current = await stored(subscription.id);
    }

    const charges = await world.charges(subscription);
    expect(charges.map((charge) => charge.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    for (const charge of charges) expect(Number(charge.amount.value)).toBe(10);
    // Run again at the last charge: nothing is due, nothing more is charged.
    await runAt(subscription, subscription.current_period_end);
    expect(await statesOf(subscription)).toHaveLength(3);
  });

  it(`${descriptor.id}: a soft decline is retried and recovers on its second retry`, async () => {
    const subscription = await subscribe();
    const due = subscription.current_period_end;

    const declined = await chargeDue(subscription, due, 'soft_decline');
    expect(declined).toMatchObject({ status: 'past_due', dunning: { class: 'soft', next: 'retry' } });
    const retried = await chargeDue(subscription, days(due, 1), 'soft_decline');
    expect(retried).toMatchObject({ status: 'past_due', dunning: { failed_attempts: 2 } });
    const recovered = await chargeDue(subscription, days(due, 3));

    expect(recovered).toMatchObject({ status: 'active', current_period: 2, periods_paid: 2, dunning: null });
    expect(await statesOf(subscription)).toEqual(['failed', 'failed', 'succeeded']);
  });

  it(`${descriptor.id}: a hard decline goes past due at once and recovers through the update link`, async () => {
    const subscription = await subscribe();
    const due = subscription.current_period_end;

    const declined = await chargeDue(subscription, due, 'hard_decline');
    expect(declined).toMatchObject({ status: 'past_due', dunning: { class: 'hard' } });
    const read = await api('GET', `/v1/subscriptions/${subscription.id}`);
    const update = { id: declined?.dunning?.update_link_id as string, checkout_url: read.body.update_url };
    expect(update.checkout_url).toEqual(expect.stringMatching(/\/pl_/));
    // No retry of a hard decline, whatever the day.
    await chargeDue(subscription, days(due, 1));
    expect(await statesOf(subscription)).toEqual(['failed']);

    await world.pay(update);
    const recovered = await eventually(async () => {
      const now = await stored(subscription.id);
      return now.status === 'active' && now;
    });
    expect(recovered).toMatchObject({ current_period: 2, periods_paid: 2, dunning: null });
    const renewed = await chargeDue(recovered, recovered.current_period_end);
    expect(renewed).toMatchObject({ status: 'active', current_period: 3, periods_paid: 3 });
    expect(await statesOf(recovered)).toContain('succeeded');
  });

  const minimums = descriptor.amounts.minimums;
  it.runIf(minimums)(
    `${descriptor.id}: a renewal its PSP refuses (an amount under its minimum after a PATCH) is a hard decline, not due for ever`,
    async () => {
      const subscription = await subscribe();
      const minimum = minimums?.[world.currency];
      if (minimum === undefined) throw new Error(`${descriptor.id} has no minimum in ${world.currency}`);
      const under = {
        value: fromMinorUnits(BigInt(Math.floor(minimum / 2)), world.currency),
        currency: world.currency,
      };
      expect((await api('PATCH', `/v1/subscriptions/${subscription.id}`, { amount: under })).status).toBe(
        200,
      );
      const due = subscription.current_period_end;

      const declined = await chargeDue(subscription, due);
      expect(declined).toMatchObject({ status: 'past_due', dunning: { class: 'hard' } });
      expect(declined?.dunning?.update_link_id).toEqual(expect.stringMatching(/^pl_/));
      const read = await api('GET', `/v1/subscriptions/${subscription.id}`);
      expect(read.body.latest_failure).toMatchObject({
        class: 'hard',
        code: 'charge_refused',
        message: expect.stringContaining('minimum'),
      });
      // Never sent to the PSP, and not sent again on a later run.
      await chargeDue(subscription, days(due, 1));
      expect(await statesOf(subscription)).toEqual([]);
      expect((await stored(subscription.id)).dunning?.failed_attempts).toBe(1);
    },
  );

  it(`${descriptor.id}: canceled at period end, it is charged nothing more`, async () => {
    const subscription = await subscribe();
    const asked = await api('POST', `/v1/subscriptions/${subscription.id}/cancel`, { at_period_end: true });
    expect(asked.body).toMatchObject({ status: 'active', cancel_at_period_end: true, next_charge_at: null });

    const ended = await chargeDue(subscription, subscription.current_period_end);
    expect(ended).toMatchObject({ status: 'canceled' });
    await chargeDue(subscription, days(subscription.current_period_end, 40));

    expect(await statesOf(subscription)).toEqual([]);
  });
});
