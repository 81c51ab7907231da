import { describe, expect, it } from 'vitest';
import { withSession } from '../../functions/domain/checkout/sessions.ts';
import { nextCheckoutStep } from '../../functions/domain/checkout/step.ts';
import { endedByUs, type Payment, settle } from '../../functions/domain/payment.ts';
import {
  clientKey,
  MAX_CLIENT_SESSIONS_PER_WINDOW,
  MAX_REUSABLE_CLIENTS_PER_WINDOW,
  MAX_SESSIONS_PER_WINDOW,
  SESSION_WINDOW_MS,
} from '../../functions/domain/session-budgets.ts';
import {
  a,
  attempt,
  b,
  declined,
  now,
  reusableLink,
  sessionOf,
  situation,
  withRange,
} from '../support/checkout-situations.ts';
import { orderLink } from '../support/psp-fixtures.ts';

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

  it('holds the place of a payment whose money is under way past its session’s end, with no time to retry at', () => {
    const link = reusableLink(2);
    const paid = settle(
      openedBy(attempt(link, a, 10), 'client_c'),
      { state: 'succeeded', failure: null, reference: 'ref' },
      now,
    ) as Payment;
    const debit: Payment = {
      ...openedBy(attempt(link, a, 5), 'client_b'),
      session_expires_at: new Date(now.getTime() - 60_000).toISOString(),
    };
    expect(nextCheckoutStep(situation({ link, payments: [debit, paid], client: 'client_a' }))).toMatchObject({
      kind: 'open',
    });
    const underWay = { ...debit, money_under_way: true } as const;
    expect(nextCheckoutStep(situation({ link, payments: [underWay, paid], client: 'client_a' }))).toEqual({
      kind: 'wait',
      reason: 'full',
      until: null,
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
