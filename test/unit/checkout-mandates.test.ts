import { describe, expect, it } from 'vitest';
import { descriptorOf } from '../../functions/adapters/psp/registry.ts';
import { mandateOfAttempt } from '../../functions/domain/checkout/mandates.ts';
import { planCheckout, type RoundFacts } from '../../functions/domain/checkout/plan.ts';
import { type CheckoutRequest, checkoutVisit } from '../../functions/domain/checkout/visit.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { INITIAL_HEALTH } from '../../functions/domain/connection-health.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import type { Routing } from '../../functions/domain/routing.ts';
import { subscriptionIdOf } from '../../functions/domain/subscription.ts';
import { storedConnection } from '../support/psp-fixtures.ts';

/**
 * The checkout's plan for a link whose payment opens a mandate (functions/domain/checkout/mandates.ts,
 * docs/subscriptions.md#starting): a subscription link or an update link goes only to connections that can hold
 * a mandate, its session asks for one, and a trial's session charges nothing.
 */

const now = new Date('2027-01-31T10:00:00Z');
const sandbox = storedConnection('sandbox', 'test', 'pc_sandbox');
/** A connection of a made-up PSP whose descriptor does not declare `holds_mandates`. */
const oneOff = storedConnection('one_off', 'test', 'pc_one_off');
/** A connection of a made-up PSP that holds mandates but sets one up only with a charge (no trials). */
const chargeFirst = storedConnection('charge_first', 'test', 'pc_charge_first');
const MADE_UP: Record<string, readonly string[]> = { charge_first: ['holds_mandates'] };
/** As the use case hands them: each PSP's rules, and whether its descriptor declares the mandate capabilities. */
const psps = {
  rules: (provider: string) => ({ amounts: { psp: provider }, pageAsks: {}, methods: {} }),
  holdsMandates: (provider: string, withoutCharge: boolean) => {
    const capabilities = MADE_UP[provider] ?? descriptorOf(provider)?.capabilities ?? [];
    return (
      capabilities.includes('holds_mandates') &&
      (!withoutCharge || capabilities.includes('mandates_without_charge'))
    );
  },
};
const request: CheckoutRequest = {
  id: 'pl_x',
  method: 'GET',
  headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
  sourceAddress: '192.0.2.1',
};
const MONTHLY = { interval: 'month', interval_count: 1 } as const;

function link(changes: Record<string, unknown> = {}, mode: Mode = 'test'): PaymentLink {
  return newPaymentLink(
    { account: 'acme', mode },
    { amount: { value: '9.90', currency: 'EUR' }, description: 'Membership', ...changes },
    now,
  );
}

function plan(planned: PaymentLink, connections: PspConnection[], routing: Routing | null = null) {
  const visit = checkoutVisit(planned, request, now);
  if ('kind' in visit) throw new Error(`no visit: ${visit.kind}`);
  const facts: RoundFacts = {
    visit,
    request,
    payments: [],
    connections: connections.map((connection) => ({ connection, health: INITIAL_HEALTH })),
    routing,
    unendable: new Set(),
    pspCallsLeft: 5,
    now,
    random: () => 0,
    psps,
  };
  return planCheckout(facts).action;
}

describe('a subscription link', () => {
  it('is opened only at connections that can hold a mandate, which are all the decision names', () => {
    const subscription = link({ recurring: MONTHLY });

    const action = plan(subscription, [oneOff, sandbox]);

    expect(action).toMatchObject({ kind: 'open', candidates: [sandbox] });
    const opening = action.kind === 'open' ? action.opening : undefined;
    expect(opening?.routing?.candidates.map((candidate) => candidate.connection)).toEqual([sandbox.id]);
    // A one-off link of the same account may go to either.
    expect(plan(link(), [oneOff, sandbox])).toMatchObject({ kind: 'open', candidates: [oneOff, sandbox] });
  });

  it('routed by a rule to a connection that cannot hold a mandate falls through to the next that can', () => {
    const routing: Routing = {
      // biome-ignore lint/suspicious/noThenProperty: a routing rule's target is its `then` (docs/orchestration.md#routing)
      rules: [{ name: 'one-off first', when: {}, then: { priority: [oneOff.id, sandbox.id] } }],
      default: [],
    };
    expect(plan(link({ recurring: MONTHLY }), [oneOff, sandbox], routing)).toMatchObject({
      kind: 'open',
      candidates: [sandbox],
    });
  });

  it('at an account whose connections hold no mandate is not set up, even in test mode (no built-in sandbox)', () => {
    expect(plan(link({ recurring: MONTHLY }), [oneOff])).toEqual({ kind: 'not_configured' });
    expect(plan(link({ recurring: MONTHLY }, 'live'), [])).toEqual({ kind: 'not_configured' });
    // An account with no connection at all tries out the built-in sandbox, which holds mandates.
    expect(plan(link({ recurring: MONTHLY }), [])).toMatchObject({
      kind: 'open',
      candidates: [{ provider: 'sandbox' }],
    });
  });

  it('asks the session for a mandate on the link’s terms, charging the period’s amount now', () => {
    const action = plan(link({ recurring: { ...MONTHLY, cycles: 12 } }), [sandbox]);

    expect(action).toMatchObject({
      kind: 'open',
      opening: {
        amount: { value: '9.90', currency: 'EUR' },
        mandate: {
          subscriptionId: undefined,
          withoutCharge: false,
          periodAmount: { value: '9.90', currency: 'EUR' },
          recurring: { interval: 'month', interval_count: 1, trial_days: null, cycles: 12 },
        },
      },
    });
  });

  it('with a trial goes only to connections whose PSP sets a mandate up without a charge', () => {
    const trial = link({ recurring: { ...MONTHLY, trial_days: 14 } });

    expect(plan(trial, [chargeFirst, sandbox])).toMatchObject({ kind: 'open', candidates: [sandbox] });
    expect(plan(trial, [chargeFirst])).toEqual({ kind: 'not_configured' });
    // Without a trial, its first period is charged: it may set the mandate up then.
    expect(plan(link({ recurring: MONTHLY }), [chargeFirst, sandbox])).toMatchObject({
      kind: 'open',
      candidates: [chargeFirst, sandbox],
    });
  });

  it('with a trial charges nothing now: the session only sets up the mandate for the period’s amount', () => {
    const action = plan(link({ recurring: { ...MONTHLY, trial_days: 14 } }), [sandbox]);

    expect(action).toMatchObject({
      kind: 'open',
      opening: {
        amount: { value: '0.00', currency: 'EUR' },
        mandate: { withoutCharge: true, periodAmount: { value: '9.90', currency: 'EUR' } },
      },
    });
  });
});

describe('an update link', () => {
  it('asks for a new mandate for its subscription, at a connection that can hold one, charging the period', () => {
    const update = link({ subscription_update: { subscription_id: 'sub_123', period: 3 } });

    const action = plan(update, [oneOff, sandbox]);

    expect(action).toMatchObject({
      kind: 'open',
      candidates: [sandbox],
      opening: {
        amount: { value: '9.90', currency: 'EUR' },
        mandate: { subscriptionId: 'sub_123', withoutCharge: false, recurring: null },
      },
    });
  });
});

describe('the mandate of an attempt', () => {
  it('names a subscription link’s new subscription after the attempt’s payment, and keeps an update link’s', () => {
    const periodAmount = { value: '9.90', currency: 'EUR' };
    const recurring = { ...MONTHLY, trial_days: null, cycles: null };
    const fresh = { subscriptionId: undefined, withoutCharge: false, periodAmount, recurring };

    expect(mandateOfAttempt(fresh, 'pay_1').subscriptionId).toBe(subscriptionIdOf('pay_1'));
    expect(mandateOfAttempt(fresh, 'pay_2').subscriptionId).not.toBe(subscriptionIdOf('pay_1'));
    expect(mandateOfAttempt({ ...fresh, subscriptionId: 'sub_123' }, 'pay_1').subscriptionId).toBe('sub_123');
  });
});
