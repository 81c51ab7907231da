import { describe, expect, it } from 'vitest';
import { countsAgainstHealth, nextAttempt } from '../../functions/domain/checkout/failover.ts';
import { outcomesToRead, planCheckout, type RoundFacts } from '../../functions/domain/checkout/plan.ts';
import { withSession } from '../../functions/domain/checkout/sessions.ts';
import { type CheckoutRequest, checkoutVisit, type Visit } from '../../functions/domain/checkout/visit.ts';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../../functions/domain/connection.ts';
import {
  afterFailure,
  type ConnectionHealth,
  FAILURES_BEFORE_DOWN,
  INITIAL_HEALTH,
} from '../../functions/domain/connection-health.ts';
import { addCounts, NO_OUTCOMES, segmentKey, segmentOf } from '../../functions/domain/outcomes.ts';
import {
  newPaymentId,
  type Payment,
  type PaymentFailureCode,
  settle,
  startedPayment,
} from '../../functions/domain/payment.ts';
import type { PaymentLink } from '../../functions/domain/payment-link.ts';
import type { PspRules } from '../../functions/domain/psp-rules.ts';
import type { Routing, RoutingTarget } from '../../functions/domain/routing.ts';
import { clientKey } from '../../functions/domain/session-budgets.ts';
import { orderLink, storedConnection } from '../support/psp-fixtures.ts';

/**
 * The checkout's plan of a round (functions/domain/checkout/plan.ts): what the use case used to work out between
 * the step and its effects (the page of a step, the details a candidate still needs, what a new session carries,
 * no connection at all), and the rules of an opening's failover (failover.ts). The steps themselves are
 * checkout-step.test.ts's.
 */

const now = new Date('2026-01-01T10:00:00Z');
const inOneHour = new Date(now.getTime() + 3_600_000).toISOString();
const sandbox = storedConnection('sandbox', 'test', 'pc_sandbox');
/** A connection of a made-up PSP that takes no euro payment below 0.50 (`RULES`). */
const priced = storedConnection('min_charge', 'test', 'pc_priced');
const RULES: Readonly<Record<string, PspRules>> = {
  min_charge: { amounts: { psp: 'Min Charge', minimums: { EUR: 50 } }, pageAsks: {}, methods: {} },
};
/** Each provider's rules, as the use case hands them from the descriptors: none but `RULES` here, no mandates. */
const psps = {
  rules: (provider: string) => RULES[provider] ?? { amounts: { psp: provider }, pageAsks: {}, methods: {} },
  holdsMandates: () => false,
};
const healthy = (connection: PspConnection) => ({ connection, health: INITIAL_HEALTH });

const request = (changes: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  id: 'pl_x',
  method: 'GET',
  headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
  sourceAddress: '192.0.2.1',
  ...changes,
});

function visitOf(link: PaymentLink, asked: CheckoutRequest = request()): Visit {
  const visit = checkoutVisit(link, asked, now);
  if ('kind' in visit) throw new Error(`no visit: ${visit.kind}`);
  return visit;
}

function facts(link: PaymentLink, changes: Partial<RoundFacts> = {}): RoundFacts {
  const asked = changes.request ?? request();
  return {
    visit: visitOf(link, asked),
    request: asked,
    payments: [],
    connections: [healthy(sandbox), healthy(priced)],
    routing: null,
    unendable: new Set(),
    pspCallsLeft: 5,
    now,
    random: () => 0,
    psps,
    ...changes,
  };
}

/** An attempt at `connection` with a session open for another hour. */
function attempt(link: PaymentLink, connection: PspConnection): Payment {
  const id = newPaymentId(now);
  return startedPayment(
    { id, link, connection, amount: link.amount! },
    { id: `sess_${id}`, expires_at: inOneHour, url: `https://psp.example/${id}` },
    new Date(now.getTime() - 60_000),
  );
}

/** A routing document whose one rule routes every link to `target`. */
const routingTo = (name: string, target: RoutingTarget): Routing => ({
  // biome-ignore lint/suspicious/noThenProperty: a routing rule's target is its `then` (docs/orchestration.md#routing)
  rules: [{ name, when: {}, then: target }],
  default: [],
});

const collecting = (collect: PaymentLink['collect']): PaymentLink => ({ ...orderLink('10.00'), collect });

describe('the visit of a round', () => {
  it('answers the pages that need no session before anything else is read', () => {
    const link = orderLink('10.00');
    expect(checkoutVisit(undefined, request(), now)).toEqual({ kind: 'not_found' });
    const paid: PaymentLink = { ...link, status: 'paid' };
    expect(checkoutVisit(paid, request(), now)).toEqual({ kind: 'paid', link: paid });
    expect(checkoutVisit(link, request({ foreign: true }), now)).toEqual({ kind: 'preview', link });
    expect(checkoutVisit(link, request({ method: 'HEAD' }), now)).toEqual({ kind: 'preview', link });
    expect(checkoutVisit(link, request({ headers: { 'accept-language': 'nl' } }), now)).toMatchObject({
      link,
      locale: 'nl',
      amount: link.amount,
    });
  });
});

describe('the plan of a round', () => {
  it('says the merchant has not finished setup when no connection serves the link and nothing is open', () => {
    // Live mode: no built-in sandbox serves it.
    const link = orderLink('10.00', 'EUR', 'live');
    expect(planCheckout(facts(link, { connections: [] })).action).toEqual({ kind: 'not_configured' });
    // An open session is still ended before anything else, though its connection is gone.
    const removed = storedConnection('min_charge', 'live', 'pc_removed');
    const open = attempt(link, removed);
    const shown = withSession(link, {
      provider: 'min_charge',
      connection_id: removed.id,
      payment_id: open.id,
      id: open.session_id as string,
      url: open.session_url as string,
      expires_at: inOneHour,
      amount: link.amount!,
    });
    const ending = planCheckout(facts(shown, { connections: [], payments: [open] })).action;
    expect(ending).toMatchObject({ kind: 'end', recorded: open });
  });

  it('opens with everything the session carries: the amount, who asks, their references, the routing', () => {
    const link = orderLink('10.00');
    const asked = request({ references: { client_reference_id: 'order-7' } });
    const plan = planCheckout(facts(link, { request: asked }));
    expect(plan.action).toMatchObject({
      kind: 'open',
      candidates: [sandbox, priced],
      opening: {
        link,
        amount: link.amount,
        locale: 'en',
        client: clientKey(link.id, undefined, '192.0.2.1'),
        references: { client_reference_id: 'order-7' },
        routing: { strategy: 'enabled', recovery: false, chosen: null },
      },
    });
    // A link without places takes none.
    expect(plan.action).toHaveProperty('place', undefined);
    expect(plan.skipped).toEqual(new Map());
  });

  it('marks the automatic next attempt after a decline as a recovery, on the next connection first', () => {
    const link = orderLink('10.00');
    const declined = settle(attempt(link, sandbox), { state: 'failed', failure: null, reference: null }, now);
    const routing = routingTo('all', { priority: [sandbox.id, priced.id], recovery: 'auto' });
    const back = request({ returned: true });
    const plan = planCheckout(facts(link, { request: back, payments: [declined as Payment], routing }));
    expect(plan.action).toMatchObject({
      kind: 'open',
      candidates: [priced, sandbox],
      opening: { routing: { rule: 'all', recovery: true, recovers: (declined as Payment).id } },
    });
  });

  it('re-routes after a soft or outage decline, never after a hard one (the buyer chooses instead)', () => {
    const link = orderLink('10.00');
    const routing = routingTo('all', { priority: [sandbox.id, priced.id], recovery: 'auto' });
    const back = request({ returned: true });
    const declinedWith = (code: PaymentFailureCode) =>
      settle(
        attempt(link, sandbox),
        { state: 'failed', failure: { code, message: 'no' }, reference: null },
        now,
      );
    for (const code of ['insufficient_funds', 'do_not_honor', 'psp_unavailable'] as const) {
      const declined = declinedWith(code) as Payment;
      const plan = planCheckout(facts(link, { request: back, payments: [declined], routing }));
      expect(plan.action, code).toMatchObject({ kind: 'open', candidates: [priced, sandbox] });
    }
    for (const code of ['expired_card', 'suspected_fraud', 'lost_or_stolen_card', 'do_not_retry'] as const) {
      const declined = declinedWith(code) as Payment;
      expect(declined.failure?.class).toBe('hard');
      const plan = planCheckout(facts(link, { request: back, payments: [declined], routing }));
      expect(plan.action, code).toMatchObject({ kind: 'page', view: { kind: 'choose', another: true } });
    }
  });

  it('asks again for a required detail that no candidate’s page can ask, keeping what the buyer gave', () => {
    // The sandbox's page asks no e-mail address: a form posted without one gets it asked.
    const link = collecting({ email: 'required' });
    const posted = request({ method: 'POST', amount: undefined, form: new Map([['answers', '1']]) });
    const plan = planCheckout(facts(link, { request: posted, connections: [healthy(sandbox)] }));
    expect(plan.action).toEqual({
      kind: 'page',
      view: {
        kind: 'ask',
        link,
        entered: undefined,
        form: { details: ['email'], values: posted.form, problems: [] },
      },
    });
  });

  it('shows the form of a link that asks first, carrying the buyer’s wish for another provider', () => {
    const link = collecting({ email: 'required' });
    const plan = planCheckout(facts(link, { request: request({ via: 'next' }) }));
    expect(plan.action).toMatchObject({
      kind: 'page',
      view: { kind: 'ask', link, form: { details: ['email'], via: 'next' } },
    });
  });

  it('turns each reason to wait into its page', () => {
    const link = orderLink('10.00');
    expect(planCheckout(facts(link, { pspCallsLeft: 0 })).action).toEqual({
      kind: 'page',
      view: { kind: 'unavailable', link, retryAt: undefined },
    });
    const reusable: PaymentLink = { ...link, reusable: true, max_payments: 1 };
    const other = attempt(reusable, priced);
    expect(planCheckout(facts(reusable, { payments: [other] })).action).toEqual({
      kind: 'page',
      view: { kind: 'full', link: reusable, retryAt: new Date(inOneHour) },
    });
  });

  it('reports the connections it leaves out for the amount, and asks a buyer-set amount again', () => {
    const link = orderLink('0.10');
    const plan = planCheckout(facts(link, { connections: [healthy(priced)] }));
    // Its PSP takes no euro payment below 0.50 (`RULES`).
    expect([...plan.skipped.keys()]).toEqual([priced.id]);
    expect(plan.action).toEqual({ kind: 'page', view: { kind: 'unavailable', link, retryAt: undefined } });
  });
});

describe('what an optimize rule learns from', () => {
  it("reads the connections' outcomes in the link's segment and in their other segments", () => {
    const link: PaymentLink = { ...orderLink('10.00'), payment_methods: ['sepa_debit'] };
    const segment = (method: 'card' | 'sepa_debit') => segmentKey(segmentOf(link.amount!, [method]));
    const counts = (sessions: number, share: number) => ({
      ...NO_OUTCOMES,
      opened: sessions,
      paid: sessions * share,
      failed: sessions * (1 - share),
    });
    // The bank transfers show no change yet; the same connection's cards fell from 85% to 55% in the last hour.
    const transfers = { last_hour: counts(600, 0.85), last_24h: counts(6_600, 0.85) };
    const cards = {
      last_hour: counts(300, 0.55),
      last_24h: addCounts(counts(9_000, 0.85), counts(300, 0.55)),
    };
    const routing = routingTo('learn', {
      optimize: 'conversion',
      connections: [sandbox.id, priced.id],
      holdout: { share: 0 },
    });
    const observed = new Map([
      [
        sandbox.id,
        new Map([
          [segment('sepa_debit'), transfers],
          [segment('card'), cards],
        ]),
      ],
    ]);

    const plan = planCheckout(facts(link, { routing, observed, random: () => 0.5 }));

    const opening = plan.action.kind === 'open' ? plan.action.opening : undefined;
    const learned = opening?.routing?.candidates.find((candidate) => candidate.connection === sandbox.id);
    expect(learned?.paid_share).toBeLessThan(0.65);
  });
});

describe('what a round reads before it plans', () => {
  it('reads the outcomes of an optimize rule’s connections only', () => {
    const link = orderLink('10.00');
    const learn = routingTo('learn', { optimize: 'conversion', connections: [sandbox.id, priced.id] });
    expect(outcomesToRead(visitOf(link), [], learn, undefined)).toEqual([sandbox.id, priced.id]);
    const priority = routingTo('p', { priority: [priced.id] });
    expect(outcomesToRead(visitOf(link), [], priority, undefined)).toBeUndefined();
    expect(
      outcomesToRead(visitOf({ ...link, connections: [priced.id] }), [], learn, undefined),
    ).toBeUndefined();
  });
});

describe('the failover of an opening', () => {
  const down = (failures: number): ConnectionHealth =>
    Array.from({ length: failures }).reduce<ConnectionHealth>(
      (health) => afterFailure(health, now),
      INITIAL_HEALTH,
    );

  it('tries available connections, claims the trial of one whose down time is over, skips the down ones', () => {
    expect(nextAttempt(1, undefined, now)).toBe('try');
    expect(nextAttempt(1, down(FAILURES_BEFORE_DOWN - 1), now)).toBe('try');
    expect(nextAttempt(1, down(FAILURES_BEFORE_DOWN), now)).toBe('skip');
    expect(nextAttempt(1, down(FAILURES_BEFORE_DOWN), new Date(now.getTime() + 3_600_000))).toBe(
      'claim_trial',
    );
    expect(nextAttempt(0, undefined, now)).toBe('stop');
  });

  it('counts only the PSP’s own failures against a connection, never the built-in sandbox', () => {
    expect(countsAgainstHealth(priced, false)).toBe(true);
    expect(countsAgainstHealth(priced, true)).toBe(false);
    expect(countsAgainstHealth({ ...sandbox, id: BUILT_IN_SANDBOX_ID }, false)).toBe(false);
  });
});
