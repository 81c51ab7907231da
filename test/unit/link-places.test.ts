import { describe, expect, it } from 'vitest';
import {
  type CheckoutSituation,
  nextCheckoutStep,
  sameAnswers,
} from '../../functions/domain/checkout/step.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { addPayment } from '../../functions/domain/link-payments.ts';
import { placesAfterPayment, placesOf, placeToTake } from '../../functions/domain/link-places.ts';
import {
  newPaymentId,
  type Payment,
  settle,
  startedPayment,
  toPaymentResource,
} from '../../functions/domain/payment.ts';
import { type LinkPlace, newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import {
  clientKey,
  MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW,
  MAX_REUSABLE_CLIENTS_PER_WINDOW,
  REUSABLE_BUDGET,
  REUSABLE_CLIENT_WINDOW_MS,
  SESSION_WINDOW_MS,
  SINGLE_USE_BUDGET,
  throttledUntil,
} from '../../functions/domain/session-budgets.ts';
import { orderLink, storedConnection } from '../support/psp-fixtures.ts';

/**
 * A reusable link's places (functions/domain/link-places.ts, docs/orchestration.md#places), its session budgets
 * (functions/domain/session-budgets.ts) and the answers an open attempt must have recorded to be shown again.
 */
const now = new Date('2026-01-01T10:00:00Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();
const sandbox: PspConnection = storedConnection('sandbox', 'test', 'pc_a');

const capped = (maxPayments: number | undefined, places: Record<string, LinkPlace> = {}): PaymentLink => ({
  ...newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount: { value: '5.00', currency: 'EUR' }, reusable: true, max_payments: maxPayments },
    now,
  ),
  places,
});

function attempt(link: PaymentLink, minutesAgo = 1, client = 'client_b'): Payment {
  const created = new Date(now.getTime() - minutesAgo * 60_000);
  const id = newPaymentId(created);
  return startedPayment(
    { id, link, connection: sandbox, amount: { value: '5.00', currency: 'EUR' }, openedBy: client },
    { id: `sess_${id}`, expires_at: at(60), url: `https://psp.example/${id}` },
    created,
  );
}

const ended = (payment: Payment, state: 'failed' | 'canceled' | 'expired' | 'succeeded') =>
  settle(payment, { state, failure: null, reference: 'ref' }, now) as Payment;

function situation(link: PaymentLink, changes: Partial<CheckoutSituation> = {}): CheckoutSituation {
  return {
    link,
    payments: [],
    routed: [sandbox],
    amountProblems: new Map(),
    now,
    wantsAnother: false,
    returned: false,
    unendable: new Set(),
    amount: link.amount ?? undefined,
    client: 'client_a',
    pspCallsLeft: 5,
    random: () => 0,
    ...changes,
  };
}

describe('the places of a reusable link with max_payments', () => {
  it('are free until held; a held place lapses at its until, or when its payment ended unpaid', () => {
    const declined = ended(attempt(capped(4)), 'failed');
    const payable = attempt(capped(4));
    const link = capped(4, {
      0: { holder: payable.id, until: at(60) },
      1: { holder: declined.id, until: at(60) },
      2: { holder: 'opening_gone', until: at(-1) },
    });
    const read = placesOf(link, [payable, declined], now);
    expect(read.free.map((place) => place.slot)).toEqual([1, 2, 3]);
    expect(read.free[0]).toEqual({ slot: 1, held: link.places[1] });
    expect(read.free[2]).toEqual({ slot: 3, held: null });
    // A payment the decision did not read keeps its place until it lapses.
    expect(placesOf(link, [payable], now).free.map((place) => place.slot)).toEqual([2, 3]);
  });

  it('are held for good by succeeded payments, and paid payments without a place take the first ones', () => {
    const link = capped(3, { 2: { holder: 'pay_placed', until: null } });
    const paid = { ...link, paid_payments: { pay_old: {}, pay_placed: {} } } as unknown as PaymentLink;
    // pay_old was paid before places existed: place 0 is its; 2 is pay_placed's; 1 is left.
    expect(placesOf(paid, [], now).free.map((place) => place.slot)).toEqual([1]);
    const full = { ...paid, places: { ...paid.places, 1: { holder: 'pay_x', until: at(30) } } };
    expect(placesOf(full, [], now)).toEqual({ free: [], firstFree: new Date(at(30)) });
    // Nothing frees a place held for good: not a payment of its holder read as ended, not a replacement.
    const endedToo = { ...ended(attempt(link), 'expired'), id: 'pay_placed' };
    expect(placesOf(full, [endedToo], now, 'pay_placed').free).toEqual([]);
  });

  it('count the buyer’s own attempt as free when a new session would replace it', () => {
    const own = attempt(capped(1));
    const link = capped(1, { 0: { holder: own.id, until: at(60) } });
    expect(placesOf(link, [own], now).free).toEqual([]);
    expect(placesOf(link, [own], now, own.id).free).toEqual([{ slot: 0, held: link.places[0] }]);
  });

  it('are none on a link without max_payments, which the count of its payments bounds as before', () => {
    expect(placesOf(capped(undefined), [], now)).toEqual({ free: [], firstFree: null });
    expect(nextCheckoutStep(situation(capped(undefined)))).toEqual({ kind: 'open', candidates: [sandbox] });
  });

  it('give an opening one free place, drawn at random', () => {
    const read = placesOf(capped(3, { 1: { holder: 'pay_1', until: at(10) } }), [], now);
    expect(placeToTake(read, () => 0)).toEqual({ slot: 0, held: null });
    expect(placeToTake(read, () => 0.999_999)).toEqual({ slot: 2, held: null });
    expect(placeToTake({ free: [], firstFree: null }, () => 0)).toBeUndefined();
    expect(nextCheckoutStep(situation(capped(3), { random: () => 0.5 }))).toEqual({
      kind: 'open',
      candidates: [sandbox],
      place: { slot: 1, held: null },
    });
  });

  it('make a buyer wait, when none is free, until the first held one lapses, whatever payments were read', () => {
    // Openings under way hold both places: no payment of theirs is recorded yet.
    const link = capped(2, {
      0: { holder: 'opening_a', until: at(2) },
      1: { holder: 'opening_b', until: at(1) },
    });
    expect(nextCheckoutStep(situation(link))).toEqual({
      kind: 'wait',
      reason: 'full',
      until: new Date(at(1)),
    });
  });

  it('become a succeeded payment’s for good in the write that records it; a duplicate gives its place up', () => {
    const link = capped(2);
    const first = attempt(link);
    const held = { ...link, places: { 1: { holder: first.id, until: at(60) } } };
    const paid = (payment: Payment, on: PaymentLink) =>
      addPayment(
        on,
        {
          id: payment.id,
          connection_id: 'pc_a',
          provider: 'sandbox',
          reference: 'ref',
          amount: payment.amount!,
        },
        toPaymentResource(ended(payment, 'succeeded'), on),
        now,
      )?.after as PaymentLink;
    const once = paid(first, held);
    expect(once.places).toEqual({ 1: { holder: first.id, until: null } });

    // A payment whose place lapsed and went to nobody takes the first free one.
    const late = attempt(link, 90);
    const twice = paid(late, once);
    expect(twice.places).toEqual({
      0: { holder: late.id, until: null },
      1: { holder: first.id, until: null },
    });
    expect(twice.status).toBe('completed');

    const beyond = { ...attempt(link), id: 'pay_beyond' };
    const taken = { ...twice, places: { ...twice.places, 2: { holder: 'pay_beyond', until: at(5) } } };
    expect(placesAfterPayment(taken, 'pay_beyond', false, now)).toEqual(twice.places);
    expect(paid(beyond, taken).places).toEqual(twice.places);
  });

  it('leave a link without places as it is', () => {
    const single = orderLink('10.00');
    expect(placesAfterPayment(single, 'pay_1', true, now)).toBe(single.places);
  });
});

describe('the session budgets of a reusable link', () => {
  const opened = (client: string, minutesAgo: number) => attempt(capped(undefined), minutesAgo, client);

  it('count each client once for the link, however many sessions it opened', () => {
    const clients = Array.from({ length: MAX_REUSABLE_CLIENTS_PER_WINDOW - 1 }, (_, index) =>
      Array.from({ length: MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW }, () => opened(`client_${index}`, 30)),
    ).flat();
    expect(throttledUntil(clients, REUSABLE_BUDGET, 'client_new', now)).toBeUndefined();
    const oneMore = [...clients, opened('client_last', 40)];
    expect(throttledUntil(oneMore, REUSABLE_BUDGET, 'client_new', now)).toEqual(
      new Date(now.getTime() - 40 * 60_000 + SESSION_WINDOW_MS),
    );
    // A client the link already counts is refused only by its own budget.
    expect(throttledUntil(oneMore, REUSABLE_BUDGET, 'client_last', now)).toBeUndefined();
  });

  it(`refuse a client for at most ${REUSABLE_CLIENT_WINDOW_MS / 60_000} minutes`, () => {
    const own = Array.from({ length: MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW }, (_, index) =>
      opened('client_a', 9 - index * 0.5),
    );
    expect(throttledUntil(own, REUSABLE_BUDGET, 'client_a', now)).toEqual(
      new Date(now.getTime() - 9 * 60_000 + REUSABLE_CLIENT_WINDOW_MS),
    );
    // Sessions older than the client's window no longer count.
    const older = own.map((payment, index) => (index === 0 ? opened('client_a', 11) : payment));
    expect(throttledUntil(older, REUSABLE_BUDGET, 'client_a', now)).toBeUndefined();
  });

  it('leave a single-use link’s budgets as they were: sessions per hour, for the client and the link', () => {
    expect(SINGLE_USE_BUDGET).toMatchObject({ linkCountsClients: false, clientWindowMs: SESSION_WINDOW_MS });
  });

  it('know a client by its IPv4 address (also mapped into IPv6), and an IPv6 client by its /64', () => {
    const key = (address: string) => clientKey('pl_1', undefined, address);
    expect(key('::ffff:192.0.2.1')).toBe(key('192.0.2.1'));
    expect(key('192.0.2.1')).not.toBe(key('192.0.2.2'));
    expect(key('2001:db8:1:2::1')).toBe(key('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(key('2001:db8:1:2::1')).toBe(key('2001:0DB8:0001:0002:0:0:0:9'));
    expect(key('2001:db8:1:2::1')).not.toBe(key('2001:db8:1:3::1'));
    expect(key('::1')).toBe(key('0:0:0:0:0:0:0:1'));
  });
});

describe('an open attempt at other answers', () => {
  it('is the same attempt only with the same details, custom fields and quantities, in any key order', () => {
    const recorded = { buyer: { email: 'ada@example.com', name: 'Ada' }, quantities: [2, 1] };
    expect(sameAnswers(recorded, undefined)).toBe(true);
    expect(
      sameAnswers(recorded, { quantities: [2, 1], buyer: { name: 'Ada', email: 'ada@example.com' } }),
    ).toBe(true);
    expect(sameAnswers(recorded, { ...recorded, quantities: [1, 2] })).toBe(false);
    expect(sameAnswers(recorded, { ...recorded, buyer: { email: 'typo@exmaple.com', name: 'Ada' } })).toBe(
      false,
    );
    expect(sameAnswers({}, {})).toBe(true);
    expect(sameAnswers(undefined, { quantities: [1] })).toBe(false);
  });

  it('is ended before a session at the answers now posted opens', () => {
    const link = capped(undefined);
    const own = { ...attempt(link), quantities: [2, 1] };
    const step = (quantities: number[]) =>
      nextCheckoutStep(situation(link, { payments: [own], buyerPayment: own.id, answers: { quantities } }));
    expect(step([2, 1])).toMatchObject({ kind: 'show' });
    expect(step([1, 2])).toMatchObject({ kind: 'end', session: { payment_id: own.id } });
  });
});
