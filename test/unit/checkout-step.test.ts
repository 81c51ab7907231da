import { describe, expect, it } from 'vitest';
import { CALLS_TO_END_A_SESSION, withSession } from '../../functions/domain/checkout/sessions.ts';
import { amountAtStake, nextCheckoutStep } from '../../functions/domain/checkout/step.ts';
import { endedByUs, type Payment, settle } from '../../functions/domain/payment.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { MAX_SESSIONS_PER_WINDOW, SESSION_WINDOW_MS } from '../../functions/domain/session-budgets.ts';
import {
  a,
  attempt,
  b,
  declined,
  inOneHour,
  now,
  recoveryDecision,
  sessionOf,
  situation,
  withRange,
} from '../support/checkout-situations.ts';
import { orderLink } from '../support/psp-fixtures.ts';

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
    expect(nextCheckoutStep(situation(back))).toEqual({
      kind: 'open',
      candidates: [b, a],
      recovers: failed.id,
    });
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
      recovers: recovered.id,
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
