import { describe, expect, it } from 'vitest';
import {
  type AmountRange,
  MAX_LINE_ITEM_NAME_LENGTH,
  MAX_LINE_ITEMS,
} from '../../functions/domain/amount.ts';
import {
  amountAtStake,
  CALLS_TO_END_A_SESSION,
  type CheckoutSituation,
  nextCheckoutStep,
  withSession,
} from '../../functions/domain/checkout.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { newId } from '../../functions/domain/ids.ts';
import {
  MAX_REPORTED_FAILURES_PER_LINK,
  markPaid,
  reportPayment,
} from '../../functions/domain/link-events.ts';
import {
  addPayment,
  MAX_PAYMENTS_PER_LINK,
  withPaymentReference,
} from '../../functions/domain/link-payments.ts';
import {
  checkFailed,
  endedByUs,
  newPaymentId,
  type Payment,
  settle,
  startedPayment,
  toPaymentResource,
  withReference,
} from '../../functions/domain/payment.ts';
import { type LinkSession, newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import {
  MAX_FAILURE_MESSAGE_LENGTH,
  MAX_REFUNDS_PER_LINK,
  requestRefund,
} from '../../functions/domain/refund.ts';
import {
  clientKey,
  MAX_CLIENT_SESSIONS_PER_WINDOW,
  MAX_REUSABLE_CLIENTS_PER_WINDOW,
  MAX_SESSIONS_PER_WINDOW,
  SESSION_WINDOW_MS,
} from '../../functions/domain/session-budgets.ts';
import { MAX_METADATA_BYTES } from '../../functions/http/metadata-limits.ts';
import { MAX_DESCRIPTION_LENGTH } from '../../functions/http/schemas.ts';
import { anyRefunds, orderLink, storedConnection } from '../support/psp-fixtures.ts';

const now = new Date('2026-01-01T10:00:00Z');
const a = storedConnection('acmepay', 'test', 'pc_a');
const b = storedConnection('otherpay', 'test', 'pc_b');
const inOneHour = new Date(now.getTime() + 3_600_000).toISOString();

/** An attempt at `connection` started `minutesAgo`, its session open for another hour, with its page. */
function attempt(
  link: PaymentLink,
  connection: PspConnection,
  minutesAgo = 1,
  amount = link.amount!,
): Payment {
  const id = newPaymentId(new Date());
  return startedPayment(
    { id, link, connection, amount },
    { id: `sess_${id}`, expires_at: inOneHour, url: `https://psp.example/${id}` },
    new Date(now.getTime() - minutesAgo * 60_000),
  );
}

const sessionOf = (payment: Payment): LinkSession => ({
  provider: payment.provider,
  connection_id: payment.connection_id,
  payment_id: payment.id,
  id: payment.session_id as string,
  url: payment.session_url as string,
  expires_at: payment.session_expires_at as string,
  amount: payment.amount!,
});

const recoveryDecision = {
  rule: 'learn',
  strategy: 'conversion' as const,
  segment: { currency: 'EUR', payment_method: 'any' as const, amount_band: '10-100' as const },
  candidates: [],
  chosen: 'pc_b',
  exploration: false,
  recovery: true,
  holdout: false,
};

const declined = (payment: Payment) =>
  settle(payment, { state: 'failed', failure: null, reference: null }, now) as Payment;

function situation(changes: Partial<CheckoutSituation> & { link: PaymentLink }): CheckoutSituation {
  return {
    payments: [],
    routed: [a, b],
    amountProblems: new Map(),
    now,
    wantsAnother: false,
    returned: false,
    unendable: new Set(),
    amount: changes.link.amount ?? undefined,
    client: 'client_a',
    pspCallsLeft: 5,
    random: () => 0,
    ...changes,
  };
}

describe('the next checkout step', () => {
  it('shows the link’s open session while its connection serves the link and the buyer has time on it', () => {
    const link = orderLink('10.00');
    const payment = attempt(link, a);
    const shown = withSession(link, sessionOf(payment));
    expect(nextCheckoutStep(situation({ link: shown, payments: [payment] }))).toEqual({
      kind: 'show',
      session: sessionOf(payment),
    });
  });

  it('ends an open session that is no longer the link’s before anything else, and never opens beside it', () => {
    const link = orderLink('10.00');
    const payment = attempt(link, a);
    // The merchant changed the description: the link dropped the session, the PSP has not confirmed its end.
    expect(nextCheckoutStep(situation({ link, payments: [payment] }))).toEqual({
      kind: 'end',
      session: sessionOf(payment),
    });
    // The PSP would not end it: the buyer is shown that one again, not a new one.
    expect(
      nextCheckoutStep(situation({ link, payments: [payment], unendable: new Set([payment.id]) })),
    ).toEqual({ kind: 'show', session: sessionOf(payment) });
    // Ended: a new session may be opened.
    const ended = endedByUs(payment, now) as Payment;
    expect(nextCheckoutStep(situation({ link, payments: [ended] }))).toMatchObject({ kind: 'open' });
  });

  it('asks to end a session only with room for the end and its read-back, and opens none without a call left', () => {
    const link = orderLink('10.00');
    const payment = attempt(link, a);
    // The link dropped the session: with one call left it is shown again rather than ended half-way.
    expect(nextCheckoutStep(situation({ link, payments: [payment], pspCallsLeft: 1 }))).toEqual({
      kind: 'show',
      session: sessionOf(payment),
    });
    expect(
      nextCheckoutStep(situation({ link, payments: [payment], pspCallsLeft: CALLS_TO_END_A_SESSION })),
    ).toEqual({ kind: 'end', session: sessionOf(payment) });
    expect(nextCheckoutStep(situation({ link, pspCallsLeft: 0 }))).toEqual({
      kind: 'wait',
      reason: 'unavailable',
      until: null,
    });
  });

  it('makes the buyer wait until an open session that can be neither ended nor shown expires', () => {
    const link = orderLink('10.00');
    const payment = { ...attempt(link, a), session_url: undefined };
    expect(
      nextCheckoutStep(situation({ link, payments: [payment], unendable: new Set([payment.id]) })),
    ).toEqual({ kind: 'wait', reason: 'unavailable', until: new Date(inOneHour) });
  });

  it('ignores ?via= while an attempt is open, and honours it after one that ended unpaid', () => {
    const link = orderLink('10.00');
    const open = attempt(link, a);
    expect(
      nextCheckoutStep(
        situation({ link: withSession(link, sessionOf(open)), payments: [open], wantsAnother: true }),
      ),
    ).toMatchObject({ kind: 'show' });
    expect(nextCheckoutStep(situation({ link, payments: [declined(open)], wantsAnother: true }))).toEqual({
      kind: 'open',
      candidates: [b, a],
    });
    expect(nextCheckoutStep(situation({ link, payments: [declined(open)] }))).toEqual({
      kind: 'open',
      candidates: [a, b],
    });
  });

  it('offers a buyer back from an unpaid attempt the choice, without opening a session', () => {
    const link = orderLink('10.00');
    const failed = declined(attempt(link, a));
    expect(nextCheckoutStep(situation({ link, payments: [failed], returned: true }))).toEqual({
      kind: 'choose',
      another: true,
    });
    expect(nextCheckoutStep(situation({ link, payments: [failed], returned: true, routed: [a] }))).toEqual({
      kind: 'choose',
      another: false,
    });
  });

  it('recovers a buyer back from a decline at the next connection at once (recovery: auto), once per buyer', () => {
    const link = orderLink('10.00');
    const failed = { ...declined(attempt(link, a)), opened_by: 'client_a' };
    const back = { link, payments: [failed], returned: true, recovery: 'auto' as const };
    expect(nextCheckoutStep(situation(back))).toEqual({ kind: 'open', candidates: [b, a], recovery: true });
    // Already recovered once: the next failure offers the choice.
    const recovered = { ...declined(attempt(link, b)), opened_by: 'client_a', routing: recoveryDecision };
    expect(nextCheckoutStep(situation({ ...back, payments: [recovered, failed] }))).toEqual({
      kind: 'choose',
      another: true,
    });
    // Another buyer's recovery is theirs.
    expect(
      nextCheckoutStep(situation({ ...back, payments: [recovered, failed], client: 'client_b' })),
    ).toMatchObject({
      kind: 'open',
      recovery: true,
    });
    // An expired session is no refusal; a rule with recovery off offers only to try again.
    const expired = settle(
      attempt(link, a),
      { state: 'expired', failure: null, reference: null },
      now,
    ) as Payment;
    expect(nextCheckoutStep(situation({ ...back, payments: [expired] }))).toEqual({
      kind: 'choose',
      another: true,
    });
    expect(nextCheckoutStep(situation({ ...back, recovery: 'off' }))).toEqual({
      kind: 'choose',
      another: false,
    });
    expect(nextCheckoutStep(situation({ ...back, recovery: 'offer' }))).toEqual({
      kind: 'choose',
      another: true,
    });
  });

  it(`opens no more than ${MAX_SESSIONS_PER_WINDOW} sessions per link in a window`, () => {
    const link = orderLink('10.00');
    const earlier = Array.from({ length: MAX_SESSIONS_PER_WINDOW }, (_, index) =>
      declined(attempt(link, a, 50 - index)),
    );
    expect(nextCheckoutStep(situation({ link, payments: earlier }))).toEqual({
      kind: 'wait',
      reason: 'throttled',
      until: new Date(now.getTime() - 50 * 60_000 + SESSION_WINDOW_MS),
    });
    expect(nextCheckoutStep(situation({ link, payments: earlier.slice(1) }))).toMatchObject({
      kind: 'open',
    });
  });

  it('leaves out connections that cannot take the amount, and waits when none can', () => {
    const link = orderLink('0.30');
    expect(
      nextCheckoutStep(situation({ link, amountProblems: new Map([['pc_a', 'below the minimum']]) })),
    ).toEqual({ kind: 'open', candidates: [b] });
    expect(
      nextCheckoutStep(
        situation({
          link,
          amountProblems: new Map([
            ['pc_a', 'below the minimum'],
            ['pc_b', 'below the minimum'],
          ]),
        }),
      ),
    ).toEqual({ kind: 'wait', reason: 'unavailable', until: null });
  });
});

/** The link with a buyer-chosen amount instead of its own. */
const withRange = (link: PaymentLink, amount_range: AmountRange) =>
  ({ ...link, amount_kind: 'range', amount: null, line_items: null, amount_range }) satisfies PaymentLink;

describe('the next checkout step of a buyer-chosen amount', () => {
  const eur = (value: string) => ({ value, currency: 'EUR' });
  const rangeLink = () =>
    withRange(orderLink('1'), { currency: 'EUR', minimum: '5.00', maximum: '500.00', suggested: '25.00' });

  it('asks for the amount, opening nothing, until the buyer chose one', () => {
    const link = rangeLink();
    expect(nextCheckoutStep(situation({ link, amount: undefined }))).toEqual({ kind: 'ask' });
    expect(nextCheckoutStep(situation({ link, amount: eur('20.00') }))).toEqual({
      kind: 'open',
      candidates: [a, b],
    });
  });

  it('shows the open session at the amount chosen, and ends one at another amount before opening', () => {
    const link = rangeLink();
    const payment = attempt(link, a, 1, eur('20.00'));
    const shown = withSession(link, sessionOf(payment));
    // A visit without a choice, or the same amount again: the same session.
    for (const amount of [undefined, eur('20'), eur('20.00')]) {
      expect(nextCheckoutStep(situation({ link: shown, payments: [payment], amount }))).toEqual({
        kind: 'show',
        session: sessionOf(payment),
      });
    }
    expect(nextCheckoutStep(situation({ link: shown, payments: [payment], amount: eur('30.00') }))).toEqual({
      kind: 'end',
      session: sessionOf(payment),
    });
    // One that cannot be ended is shown again, at its own amount: never a second payable session.
    expect(
      nextCheckoutStep(
        situation({
          link: shown,
          payments: [payment],
          amount: eur('30.00'),
          unendable: new Set([payment.id]),
        }),
      ),
    ).toEqual({ kind: 'show', session: sessionOf(payment) });
  });

  it('asks again when no connection can take the amount chosen', () => {
    const problems = new Map([
      ['pc_a', 'below the minimum'],
      ['pc_b', 'below the minimum'],
    ]);
    expect(
      nextCheckoutStep(situation({ link: rangeLink(), amount: eur('5.00'), amountProblems: problems })),
    ).toEqual({ kind: 'ask', problem: 'not_payable' });
  });

  it('asks again when no connection can take the total of the quantities picked, but waits on a fixed total', () => {
    const problems = new Map([
      ['pc_a', 'below the minimum'],
      ['pc_b', 'below the minimum'],
    ]);
    const lines = (enabled: boolean) =>
      newPaymentLink(
        { account: 'acme', mode: 'test' },
        {
          line_items: [
            {
              name: 'Sticker',
              quantity: 1,
              unit_amount: eur('0.10'),
              adjustable_quantity: { enabled, minimum: 1, maximum: 5 },
            },
          ],
        },
        now,
      );
    expect(nextCheckoutStep(situation({ link: lines(true), amountProblems: problems }))).toEqual({
      kind: 'ask',
      problem: 'not_payable',
    });
    expect(nextCheckoutStep(situation({ link: lines(false), amountProblems: problems }))).toMatchObject({
      kind: 'wait',
      reason: 'unavailable',
    });
  });

  it('is routed on the amount chosen, else the attempt shown, else the latest, else the suggestion', () => {
    const link = rangeLink();
    expect(amountAtStake(link, [], eur('7.00'))).toEqual(eur('7.00'));
    expect(amountAtStake(link, [], undefined)).toEqual(eur('25.00'));
    expect(
      amountAtStake({ ...link, amount_range: { ...link.amount_range!, suggested: null } }, [], undefined),
    ).toEqual(eur('5.00'));
    const older = declined(attempt(link, a, 5, eur('40.00')));
    expect(amountAtStake(link, [older], undefined)).toEqual(eur('40.00'));
    const current = attempt(link, b, 1, eur('60.00'));
    expect(amountAtStake(withSession(link, sessionOf(current)), [older, current], undefined)).toEqual(
      eur('60.00'),
    );
    expect(amountAtStake(orderLink('10.00'), [older], undefined)).toEqual(eur('10.00'));
  });
});

describe('a payment the sweeper asks about', () => {
  it('is asked again later when the question failed, and stays pending even past its session', () => {
    const link = orderLink('10.00');
    const payment = { ...attempt(link, a), session_expires_at: new Date(now.getTime() - 1).toISOString() };
    const later = checkFailed(payment, now) as Payment;
    expect(later).toMatchObject({ status: 'pending', checks: 1 });
    expect(Date.parse(later.next_check_at as string)).toBeGreaterThan(now.getTime());
    const again = checkFailed(later, now) as Payment;
    expect(Date.parse(again.next_check_at as string)).toBeGreaterThan(
      Date.parse(later.next_check_at as string),
    );
    expect(checkFailed(declined(payment), now)).toBeUndefined();
  });

  it('takes the PSP reference of a payment that succeeded without one, once', () => {
    const link = orderLink('10.00');
    const succeeded = settle(
      attempt(link, a),
      { state: 'succeeded', failure: null, reference: null },
      now,
    ) as Payment;
    expect(succeeded.provider_reference).toBeNull();
    const referenced = withReference(succeeded, 'PSP123', now);
    expect(referenced).toMatchObject({ status: 'succeeded', provider_reference: 'PSP123' });
    expect(withReference(referenced as Payment, 'OTHER', now)).toBeUndefined();
    expect(withReference(succeeded, null, now)).toBeUndefined();
  });
});

describe('a link paid before its PSP reference is known', () => {
  it('takes the reference of its own payment later, and still reports another payment as a duplicate', () => {
    const link = orderLink('10.00');
    const paid = markPaid(
      link,
      { id: 'pay_1', connection_id: 'pc_a', provider: 'acmepay', reference: null, amount: link.amount! },
      now,
    )?.after as PaymentLink;
    expect(paid).toMatchObject({ status: 'paid', payment: { reference: null } });
    expect(withPaymentReference(paid, 'pay_other', 'PSP1')).toBeUndefined();
    const referenced = withPaymentReference(paid, 'pay_1', 'PSP1');
    expect(referenced).toMatchObject({ payment: { reference: 'PSP1' }, version: paid.version + 1 });
    expect(withPaymentReference(referenced as PaymentLink, 'pay_1', 'PSP2')).toBeUndefined();

    const second = settle(
      attempt(link, b),
      { state: 'succeeded', failure: null, reference: null },
      now,
    ) as Payment;
    const report = reportPayment(
      paid,
      'payment_link.duplicate_payment',
      toPaymentResource(second, paid),
      now,
    );
    expect(report?.event.type).toBe('payment_link.duplicate_payment');
  });
});

/** A reusable link (docs/orchestration.md#reusable-links). */
const reusableLink = (maxPayments?: number): PaymentLink =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount: { value: '5.00', currency: 'EUR' }, reusable: true, max_payments: maxPayments },
    now,
  );

describe('the next checkout step on a reusable link', () => {
  it('opens a session for a new buyer while another buyer’s session is open, and never ends theirs', () => {
    const link = reusableLink();
    const theirs = attempt(link, a);
    expect(nextCheckoutStep(situation({ link, payments: [theirs] }))).toEqual({
      kind: 'open',
      candidates: [a, b],
    });
    // A cookie naming another buyer's payment that is not among the link's changes nothing.
    expect(nextCheckoutStep(situation({ link, payments: [theirs], buyerPayment: 'pay_unknown' }))).toEqual({
      kind: 'open',
      candidates: [a, b],
    });
  });

  it('shows the buyer their own open session, and ends it first when it can no longer serve them', () => {
    const link = reusableLink();
    const theirs = attempt(link, a);
    const own = attempt(link, a, 2);
    const payments = [theirs, own];
    expect(nextCheckoutStep(situation({ link, payments, buyerPayment: own.id }))).toEqual({
      kind: 'show',
      session: sessionOf(own),
    });
    // Its connection no longer serves the link: ended before the buyer gets another.
    expect(nextCheckoutStep(situation({ link, payments, buyerPayment: own.id, routed: [b] }))).toEqual({
      kind: 'end',
      session: sessionOf(own),
    });
    // The merchant changed what buyers see since it was opened: ended too.
    const changed = { ...link, sessions_stale_before: now.toISOString() };
    expect(nextCheckoutStep(situation({ link: changed, payments, buyerPayment: own.id }))).toEqual({
      kind: 'end',
      session: sessionOf(own),
    });
    // Its PSP will not end it: shown again, never a second session for the same buyer.
    expect(
      nextCheckoutStep(
        situation({ link, payments, buyerPayment: own.id, routed: [b], unendable: new Set([own.id]) }),
      ),
    ).toEqual({ kind: 'show', session: sessionOf(own) });
  });

  it('offers a buyer back from their own unpaid attempt the choice, whatever other buyers did', () => {
    const link = reusableLink();
    const own = declined(attempt(link, a, 3));
    const theirs = attempt(link, b);
    expect(
      nextCheckoutStep(situation({ link, payments: [theirs, own], buyerPayment: own.id, returned: true })),
    ).toEqual({ kind: 'choose', another: true });
    expect(
      nextCheckoutStep(
        situation({ link, payments: [theirs, own], buyerPayment: own.id, wantsAnother: true }),
      ),
    ).toEqual({ kind: 'open', candidates: [b, a] });
  });

  it('opens at most MAX_REUSABLE_CLIENTS_PER_WINDOW sessions per window, for all buyers together', () => {
    const link = reusableLink();
    const many = Array.from({ length: MAX_REUSABLE_CLIENTS_PER_WINDOW - 1 }, () => attempt(link, a, 30));
    expect(MAX_REUSABLE_CLIENTS_PER_WINDOW).toBeGreaterThan(MAX_SESSIONS_PER_WINDOW);
    expect(nextCheckoutStep(situation({ link, payments: many }))).toMatchObject({ kind: 'open' });
    const full = [attempt(link, a, 59), ...many];
    expect(nextCheckoutStep(situation({ link, payments: full }))).toEqual({
      kind: 'wait',
      reason: 'throttled',
      until: new Date(now.getTime() - 59 * 60_000 + SESSION_WINDOW_MS),
    });
  });
});

describe('session budgets and places, checked before anything is ended', () => {
  const eur = (value: string) => ({ value, currency: 'EUR' });
  const openedBy = (payment: Payment, client: string): Payment => ({ ...payment, opened_by: client });

  it(`gives each client its own ${MAX_CLIENT_SESSIONS_PER_WINDOW} sessions per window, below the link’s`, () => {
    const link = orderLink('10.00');
    expect(MAX_CLIENT_SESSIONS_PER_WINDOW).toBeLessThan(MAX_SESSIONS_PER_WINDOW);
    const mine = Array.from({ length: MAX_CLIENT_SESSIONS_PER_WINDOW }, (_, index) =>
      openedBy(declined(attempt(link, a, 40 - index)), 'client_a'),
    );
    expect(nextCheckoutStep(situation({ link, payments: mine, client: 'client_a' }))).toEqual({
      kind: 'wait',
      reason: 'throttled',
      until: new Date(now.getTime() - 40 * 60_000 + SESSION_WINDOW_MS),
    });
    // Another client still gets a session: one visitor never locks the link.
    expect(nextCheckoutStep(situation({ link, payments: mine, client: 'client_b' }))).toMatchObject({
      kind: 'open',
    });
  });

  it('does not count sessions we ended unused towards the link’s budget, only the client’s', () => {
    const link = orderLink('10.00');
    const replaced = Array.from({ length: MAX_SESSIONS_PER_WINDOW + 5 }, (_, index) =>
      endedByUs(openedBy(attempt(link, a, 50 - index), `client_${index}`), now),
    ) as Payment[];
    expect(replaced.every((payment) => payment.ended_unused)).toBe(true);
    expect(nextCheckoutStep(situation({ link, payments: replaced, client: 'client_new' }))).toMatchObject({
      kind: 'open',
    });
    // Sessions the PSP ended (declined) hold their place.
    const declinedOnes = replaced.map((payment) => ({ ...declined(attempt(link, a, 30)), id: payment.id }));
    expect(nextCheckoutStep(situation({ link, payments: declinedOnes, client: 'client_new' }))).toMatchObject(
      { kind: 'wait', reason: 'throttled' },
    );
  });

  it('keeps a buyer’s open session when a new amount would take them over their budget', () => {
    const link = withRange(orderLink('1'), { currency: 'EUR', minimum: '1.00', maximum: '500.00' });
    const replaced = Array.from(
      { length: MAX_CLIENT_SESSIONS_PER_WINDOW - 1 },
      (_, index) =>
        endedByUs(openedBy(attempt(link, a, 20 - index, eur(`${index + 1}.00`)), 'client_a'), now) as Payment,
    );
    const current = openedBy(attempt(link, a, 1, eur('9.00')), 'client_a');
    const shown = withSession(link, sessionOf(current));
    const payments = [current, ...replaced];
    // Over budget: the open session is not ended (it would be lost with nothing in its place).
    expect(
      nextCheckoutStep(situation({ link: shown, payments, amount: eur('10.00'), client: 'client_a' })),
    ).toMatchObject({ kind: 'wait', reason: 'throttled' });
    // Within budget (one fewer earlier attempt), it is ended to open the new one.
    expect(
      nextCheckoutStep(
        situation({ link: shown, payments: payments.slice(0, -1), amount: eur('10.00'), client: 'client_a' }),
      ),
    ).toEqual({ kind: 'end', session: sessionOf(current) });
  });

  it('opens no session on a reusable link whose payments and payable sessions reach max_payments', () => {
    const link = reusableLink(2);
    const theirs = openedBy(attempt(link, a, 5), 'client_b');
    const paid = settle(
      openedBy(attempt(link, a, 10), 'client_c'),
      { state: 'succeeded', failure: null, reference: 'ref' },
      now,
    ) as Payment;
    expect(nextCheckoutStep(situation({ link, payments: [theirs], client: 'client_a' }))).toMatchObject({
      kind: 'open',
    });
    expect(nextCheckoutStep(situation({ link, payments: [theirs, paid], client: 'client_a' }))).toEqual({
      kind: 'wait',
      reason: 'full',
      until: new Date(theirs.session_expires_at as string),
    });
    // A buyer-chosen amount is not asked for when no place is left: the buyer is told before they type one.
    const range = withRange(link, { currency: 'EUR', minimum: '1.00', maximum: '9.00' });
    expect(
      nextCheckoutStep(
        situation({ link: range, payments: [theirs, paid], amount: undefined, client: 'client_a' }),
      ),
    ).toMatchObject({ kind: 'wait', reason: 'full' });
    // The buyer's own payable session gives its place to the one replacing it.
    const stale = { ...link, sessions_stale_before: now.toISOString() };
    expect(
      nextCheckoutStep(
        situation({ link: stale, payments: [theirs, paid], buyerPayment: theirs.id, client: 'client_b' }),
      ),
    ).toEqual({ kind: 'end', session: sessionOf(theirs) });
    // A session that expired unpaid frees its place.
    const expired = settle(theirs, { state: 'expired', failure: null, reference: null }, now) as Payment;
    expect(
      nextCheckoutStep(situation({ link, payments: [expired, paid], client: 'client_a' })),
    ).toMatchObject({
      kind: 'open',
    });
  });

  it('knows a buyer by the client of their own attempt, else by a hash of their address and the link', () => {
    const byAddress = clientKey('pl_1', undefined, '192.0.2.1');
    expect(byAddress).not.toContain('192.0.2.1');
    expect(clientKey('pl_1', undefined, '192.0.2.1')).toBe(byAddress);
    expect(clientKey('pl_1', undefined, '192.0.2.2')).not.toBe(byAddress);
    expect(clientKey('pl_2', undefined, '192.0.2.1')).not.toBe(byAddress);
    expect(clientKey('pl_1', { opened_by: 'client_x' }, '192.0.2.9')).toBe('client_x');
  });
});

describe('payments of a reusable link', () => {
  const paidBy = (link: PaymentLink, id: string) => {
    const payment = settle(
      { ...attempt(link, a), id },
      { state: 'succeeded', failure: null, reference: `ref_${id}` },
      now,
    ) as Payment;
    return addPayment(
      link,
      { id, connection_id: 'pc_a', provider: 'acmepay', reference: `ref_${id}`, amount: link.amount! },
      toPaymentResource(payment, link),
      now,
    );
  };

  it('are each one payment_link.paid carrying it; the one that reaches max_payments completes the link', () => {
    const first = paidBy(reusableLink(2), 'pay_1');
    expect(first?.event).toMatchObject({
      type: 'payment_link.paid',
      data: { status: 'open', succeeded_payments: 1, payment: { id: 'pay_1', reference: 'ref_pay_1' } },
    });
    const second = paidBy(first?.after as PaymentLink, 'pay_2');
    expect(second?.event).toMatchObject({
      type: 'payment_link.paid',
      data: { status: 'completed', succeeded_payments: 2, payment: { id: 'pay_2' } },
    });
    // The same confirmation again records nothing.
    expect(paidBy(second?.after as PaymentLink, 'pay_2')).toBeUndefined();
    expect(paidBy(first?.after as PaymentLink, 'pay_1')).toBeUndefined();
  });

  it('records a payment beyond max_payments, refundable, and reports it as a duplicate payment', () => {
    const full = paidBy(reusableLink(1), 'pay_1')?.after as PaymentLink;
    expect(full.status).toBe('completed');
    const beyond = paidBy(full, 'pay_2');
    expect(beyond?.event).toMatchObject({
      type: 'payment_link.duplicate_payment',
      data: { status: 'completed', succeeded_payments: 2, payment: { id: 'pay_2', status: 'succeeded' } },
    });
    expect(beyond?.after.paid_payments?.pay_2).toMatchObject({ refund_reserved_minor: 0 });
    // The link's payment stays the last one it took.
    expect(beyond?.after.payment?.id).toBe('pay_1');
  });

  it('are recorded on a link canceled meanwhile, which stays canceled', () => {
    const canceled: PaymentLink = { ...reusableLink(), status: 'canceled', canceled_at: now.toISOString() };
    const late = paidBy(canceled, 'pay_1');
    expect(late?.event.type).toBe('payment_link.paid');
    expect(late?.after).toMatchObject({ status: 'canceled', paid_payments: { pay_1: { id: 'pay_1' } } });
  });

  it('never move the link to paid through the single-use markPaid', () => {
    const payment = {
      id: 'pay_1',
      connection_id: 'pc_a',
      provider: 'acmepay',
      reference: 'r',
      amount: reusableLink().amount!,
    };
    expect(markPaid(reusableLink(), payment, now)).toBeUndefined();
  });
});

describe('a reusable link at every per-link limit', () => {
  it('stays far below DynamoDB’s 400 KB item limit, however many of its payments fail', () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 8 }, (_, key) => [`key_${key}`, 'm'.repeat(MAX_METADATA_BYTES / 8 - 20)]),
    );
    let link: PaymentLink = {
      ...newPaymentLink(
        { account: 'acme', mode: 'test' },
        {
          line_items: Array.from({ length: MAX_LINE_ITEMS }, () => ({
            name: 'n'.repeat(MAX_LINE_ITEM_NAME_LENGTH),
            quantity: 1,
            unit_amount: { value: '1.00', currency: 'EUR' },
          })),
          description: 'd'.repeat(MAX_DESCRIPTION_LENGTH),
          metadata,
          reusable: true,
        },
        now,
      ),
    };
    // Failures are reported while the link is open: before its payments complete it.
    let reportedFailures = 0;
    for (let failed = 0; failed < MAX_REPORTED_FAILURES_PER_LINK + 50; failed++) {
      const payment = settle(
        { ...attempt(link, a), id: newPaymentId(new Date()) },
        { state: 'failed', failure: { code: 'declined', message: 'Declined.' }, reference: null },
        now,
      ) as Payment;
      const report = reportPayment(
        link,
        'payment_link.payment_failed',
        toPaymentResource(payment, link),
        now,
      );
      if (!report) continue;
      reportedFailures++;
      link = report.after;
    }
    for (let paid = 0; paid < MAX_PAYMENTS_PER_LINK; paid++) {
      const id = newPaymentId(new Date());
      const payment = settle(
        { ...attempt(link, a), id },
        { state: 'succeeded', failure: null, reference: `pi_${'r'.repeat(24)}` },
        now,
      ) as Payment;
      link = addPayment(
        link,
        {
          id,
          connection_id: a.id,
          provider: 'acmepay',
          reference: payment.provider_reference,
          amount: link.amount!,
        },
        toPaymentResource(payment, link),
        now,
      )?.after as PaymentLink;
    }
    const paymentIds = Object.keys(link.paid_payments ?? {});
    link = {
      ...link,
      refunds: Array.from({ length: MAX_REFUNDS_PER_LINK }, (_, index) => ({
        ...requestRefund(
          link,
          { value: '0.01', currency: 'EUR' },
          newId('re'),
          now,
          anyRefunds,
          paymentIds[index],
        ),
        status: 'failed' as const,
        failure: { code: 'psp_refused', message: 'f'.repeat(MAX_FAILURE_MESSAGE_LENGTH) },
        provider_reference: `re_${'r'.repeat(24)}`,
      })),
      event_ids: [...link.event_ids, ...Array.from({ length: MAX_REFUNDS_PER_LINK * 2 }, () => newId('evt'))],
    };

    expect(reportedFailures).toBe(MAX_REPORTED_FAILURES_PER_LINK);
    // JSON spells every name and value out, as DynamoDB counts an item, plus its own quotes and braces.
    expect(Buffer.byteLength(JSON.stringify(link))).toBeLessThan(340_000);
  });
});
