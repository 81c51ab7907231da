import { isDeepStrictEqual } from 'node:util';
import { buyerSetsAmount } from '../amount.ts';
import type { PspConnection } from '../connection.ts';
import { paymentLimit } from '../link-payments.ts';
import { hasPlaces, type PlaceToTake, placesOf, placeToTake } from '../link-places.ts';
import { type Amount, toMinorUnits } from '../money.ts';
import { type Payment, paymentAmount } from '../payment.ts';
import { reroutable } from '../payment-failure.ts';
import type { PaymentLink, PspSession } from '../payment-link.ts';
import type { RecoveryMode } from '../routing.ts';
import {
  REUSABLE_BUDGET,
  type SessionBudget,
  SINGLE_USE_BUDGET,
  throttledUntil,
} from '../session-budgets.ts';
// Types only: the answers' rules (and libphonenumber's tables) stay out of every function that imports this one.
import type { CheckoutAnswers } from './answers.ts';
import { CALLS_TO_END_A_SESSION, openSessions, reusableSession, servesStill } from './sessions.ts';

/**
 * Which step comes next for a buyer on an open link (`nextCheckoutStep`): show, end or open a PSP session, offer a
 * choice, ask, or wait. The session model it decides on is sessions.ts's.
 */

/** What the checkout decided, given what is stored and what the PSPs said so far in this request. */
export type CheckoutStep =
  /** Send the buyer to this open session. */
  | { kind: 'show'; session: PspSession }
  /** End this open session at its PSP first (then decide again). */
  | { kind: 'end'; session: PspSession }
  /**
   * Open a session: try these connections in this order (failover); `recovers`: the buyer's failed payment when
   * it is the automatic next attempt after it (docs/orchestration.md#recovery); `place`: the link's place to take
   * first, on a link with places (functions/domain/link-places.ts).
   */
  | { kind: 'open'; candidates: PspConnection[]; recovers?: string; place?: PlaceToTake }
  /**
   * The buyer came back after an attempt that ended unpaid: offer to try again, and (`another`) to pay with
   * another payment provider, without opening a session yet.
   */
  | { kind: 'choose'; another: boolean }
  /**
   * A buyer-chosen amount (`amount_range`) and none chosen in this request: ask for it, opening nothing;
   * `not_payable` when the amount chosen is one that no connection serving the link can take.
   */
  | { kind: 'ask'; problem?: 'not_payable' }
  /**
   * Nothing can be shown now: an open session that could not be ended nor shown (`unavailable`, until it
   * expires), no connection that can take the link (`unavailable`), too many sessions lately (`throttled`), or a
   * reusable link whose payments and payable sessions already reach `max_payments` (`full`, until the first of
   * those sessions expires, when a place may free up).
   */
  | { kind: 'wait'; reason: 'unavailable' | 'throttled' | 'full'; until: Date | null };

export interface CheckoutSituation {
  link: PaymentLink;
  /** The link's payments, newest first. */
  payments: readonly Payment[];
  /** The connections that serve the link now, in routing order. */
  routed: readonly PspConnection[];
  /**
   * What a new session would charge: the link's amount, or for a buyer-chosen amount (`amount_range`) the one
   * the buyer chose in this request; undefined when they have not (the page asks before opening anything).
   */
  amount: Amount | undefined;
  /** Why a routed connection cannot take `amount` (checked locally), by connection id. */
  amountProblems: ReadonlyMap<string, string>;
  now: Date;
  /** The buyer asked to pay with another payment provider than the last attempt's (`?via=next`). */
  wantsAnother: boolean;
  /** The buyer came back from the PSP without paying (`?canceled=1`). */
  returned: boolean;
  /**
   * What the buyer answered on our page in this request (custom fields, quantities, details); undefined when
   * nothing was posted. An open attempt that recorded other answers is replaced, as for another amount.
   */
  answers?: CheckoutAnswers | undefined;
  /** Payments whose sessions this request could not end (the PSP refused, or could not be asked). */
  unendable: ReadonlySet<string>;
  /** On a reusable link: the buyer's own last attempt, named by their cookie (docs/checkout.md#reusable-links). */
  buyerPayment?: string | undefined;
  /** Who asks (`clientKey`): the key its session budget is counted under. */
  client: string;
  /** PSP calls this request may still make (its function's call budget, and what fits in the time left). */
  pspCallsLeft: number;
  /** What a buyer back after a failed attempt gets (the routing rule's `recovery`); absent: `offer`. */
  recovery?: RecoveryMode | undefined;
  /** Uniform in [0, 1): which free place an opening takes. */
  random: () => number;
}

const canEnd = (situation: CheckoutSituation) => situation.pspCallsLeft >= CALLS_TO_END_A_SESSION;

const ENDED_UNPAID = new Set(['failed', 'canceled', 'expired']);

/** The last attempt that got a session (failovers that never opened one are not attempts the buyer saw). */
const lastAttempt = (payments: readonly Payment[]) => payments.find((payment) => payment.session_id !== null);

/**
 * The next step of the checkout page for a buyer on an open link (docs/orchestration.md#sessions):
 * 1. an open attempt is shown while it is the link's session, from a connection that serves the link, with
 *    time left, at the amount at stake (a buyer who chose another amount gets a new session at it); otherwise
 *    every open attempt is ended first, one step at a time, but only when a new one may then be opened
 *    (`openingBlocked`); one that cannot be ended is shown again while it can be paid (even at an amount the
 *    buyer no longer wants), or the buyer waits until it expires: never a second open session;
 * 2. a buyer back from an attempt that ended unpaid is offered to try again or another provider;
 * 3. a buyer who cannot get a new session now (the link's or the client's budget is spent, or a reusable link
 *    has no place left: `openingBlocked`) is told so, before anything else is asked;
 * 4. a buyer-chosen amount not yet chosen is asked for, opening nothing;
 * 5. a new session is opened at the routed connections that can take the amount; `wantsAnother` (honoured only
 *    after an attempt that ended unpaid) puts that attempt's connection last. A chosen amount that none of them
 *    can take is asked for again.
 */
export function nextCheckoutStep(situation: CheckoutSituation): CheckoutStep {
  if (situation.link.reusable) return nextReusableStep(situation);
  const { link, payments, routed, now, unendable } = situation;
  const open = openSessions(link, payments, now);
  const routedIds = routed.map((connection) => connection.id);
  const current = open[0];
  if (current) {
    if (
      current.id === link.psp_session?.id &&
      current.url !== '' &&
      !unendable.has(current.payment_id) &&
      reusableSession(link, routedIds, now) &&
      (situation.amount === undefined || sameAmount(paymentAmount(current, link), situation.amount)) &&
      sameAnswers(
        payments.find((payment) => payment.id === current.payment_id),
        situation.answers,
      )
    ) {
      return { kind: 'show', session: current };
    }
    const toEnd = canEnd(situation) ? open.find((session) => !unendable.has(session.payment_id)) : undefined;
    // Ended only when another may be opened after it: a buyer over budget keeps what is open.
    if (toEnd) return openingBlocked(situation, SINGLE_USE_BUDGET) ?? { kind: 'end', session: toEnd };
    const payable = open.find((session) => session.url !== '');
    if (payable) return { kind: 'show', session: payable };
    const until = Math.min(...open.map((session) => Date.parse(session.expires_at)));
    return { kind: 'wait', reason: 'unavailable', until: new Date(until) };
  }

  return newSessionStep(situation, lastAttempt(payments), SINGLE_USE_BUDGET);
}

/**
 * The next step for a buyer on an open reusable link: as for a single-use link, but only the buyer's own attempt
 * (`buyerPayment`) counts: it is shown while it can serve them (and shows what the link says now:
 * `sessions_stale_before`), or ended before they get a new one; one that cannot be ended is shown again while it
 * can be paid. Other buyers' open attempts are theirs. New sessions are bounded by the reusable budgets and by
 * `max_payments` (`openingBlocked`).
 */
function nextReusableStep(situation: CheckoutSituation): CheckoutStep {
  const { link, payments, now, buyerPayment } = situation;
  const own =
    buyerPayment === undefined ? undefined : payments.find((payment) => payment.id === buyerPayment);
  const session = own && openSessions({ ...link, psp_session: null }, [own], now)[0];
  const step = own && session && ownSessionStep(situation, own, session);
  if (step) return step;
  return newSessionStep(situation, own?.session_id ? own : undefined, REUSABLE_BUDGET);
}

/** The buyer's own open attempt: shown while it serves them, else ended when another may open, else shown. */
function ownSessionStep(
  situation: CheckoutSituation,
  own: Payment,
  session: PspSession,
): CheckoutStep | undefined {
  const { link, routed, now, unendable } = situation;
  const routedIds = routed.map((connection) => connection.id);
  const stale = link.sessions_stale_before !== null && own.created_at < link.sessions_stale_before;
  const wanted =
    (situation.amount === undefined || sameAmount(paymentAmount(own, link), situation.amount)) &&
    sameAnswers(own, situation.answers);
  const endable = !unendable.has(own.id);
  if (session.url !== '' && endable && !stale && wanted && servesStill(session, routedIds, now)) {
    return { kind: 'show', session };
  }
  if (endable && canEnd(situation)) {
    // The buyer's own attempt gives its place to the one that replaces it.
    return openingBlocked(situation, REUSABLE_BUDGET, own.id) ?? { kind: 'end', session };
  }
  return session.url !== '' ? { kind: 'show', session } : undefined;
}

/**
 * No open attempt stands in the way: offer a choice to a buyer back from `last` that ended unpaid, else open a
 * session unless the budgets or the link's places say no (`openingBlocked`).
 */
function newSessionStep(
  situation: CheckoutSituation,
  last: Payment | undefined,
  budget: SessionBudget,
): CheckoutStep {
  const { link, routed } = situation;
  const endedUnpaid = last !== undefined && ENDED_UNPAID.has(last.status);
  const others = routed.filter((connection) => connection.id !== last?.connection_id);
  const recovering = others.length > 0 && autoRecovery(situation, last);
  const choice = choiceOnReturn(situation, endedUnpaid && !recovering, others.length);
  if (choice) return choice;
  // Before asking for an amount: a buyer who cannot get a session now is told so before they type one.
  const blocked = openingBlocked(situation, budget);
  if (blocked) return blocked;
  if (situation.amount === undefined) return { kind: 'ask' };
  if (situation.pspCallsLeft < 1) return { kind: 'wait', reason: 'unavailable', until: null };

  const ordered =
    (situation.wantsAnother || recovering) && endedUnpaid
      ? [...others, ...routed.filter((connection) => connection.id === last.connection_id)]
      : [...routed];
  const candidates = ordered.filter((connection) => !situation.amountProblems.has(connection.id));
  if (candidates.length === 0) {
    // The buyer can fix a chosen amount (or quantities) that no PSP takes (below a PSP's minimum, say); not a fixed one.
    return buyerSetsAmount(link) && ordered.length > 0
      ? { kind: 'ask', problem: 'not_payable' }
      : { kind: 'wait', reason: 'unavailable', until: null };
  }
  return openStep(situation, candidates, recovering ? last?.id : undefined);
}

/** Open at `candidates`, in one of the link's free places when it has places. */
function openStep(
  situation: CheckoutSituation,
  candidates: PspConnection[],
  recovers: string | undefined,
): CheckoutStep {
  const place = placeToTake(placesOf(situation.link, situation.payments, situation.now), situation.random);
  return {
    kind: 'open',
    candidates,
    ...(recovers ? { recovers } : {}),
    ...(place ? { place } : {}),
  };
}

/** A buyer back from an attempt that ended unpaid, and not recovered automatically, chooses what next. */
function choiceOnReturn(
  situation: CheckoutSituation,
  offered: boolean,
  others: number,
): CheckoutStep | undefined {
  if (!situation.returned || !offered) return undefined;
  return { kind: 'choose', another: others > 0 && situation.recovery !== 'off' };
}

/**
 * Whether the buyer back from `last` gets the next connection at once (`recovery: auto`): only after a decline
 * or a cancel on the PSP's page (an expired session is not a refusal) that another connection may pass (not a
 * `hard` one: docs/orchestration.md#decline-codes), and once per buyer (`client`). After a hard decline the buyer
 * is offered the choice, as without recovery.
 */
function autoRecovery(situation: CheckoutSituation, last: Payment | undefined): boolean {
  if (situation.recovery !== 'auto' || !last || last.ended_unused) return false;
  if (last.status !== 'failed' && last.status !== 'canceled') return false;
  if (!reroutable(last.failure)) return false;
  return !situation.payments.some(
    (payment) => payment.routing?.recovery === true && payment.opened_by === situation.client,
  );
}

/**
 * Why no new session may be opened now (docs/security.md#checkout-sessions), checked before anything is ended
 * for one: the client's budget or the link's is spent (`throttled`, `throttledUntil`), or, on a reusable link,
 * its succeeded payments and payable sessions reach `max_payments`, or none of its places is free (`full`), so
 * that no more buyers can pay than the merchant allowed. `replacing` is the buyer's own payable attempt that the
 * new session would replace: it gives up its place.
 */
function openingBlocked(
  situation: CheckoutSituation,
  budget: SessionBudget,
  replacing?: string,
): CheckoutStep | undefined {
  const { link, payments, now, client } = situation;
  const until = throttledUntil(payments, budget, client, now);
  if (until) return { kind: 'wait', reason: 'throttled', until };
  if (!link.reusable) return undefined;

  const cap = paymentLimit(link);
  const succeeded = new Set([
    ...Object.keys(link.paid_payments),
    ...payments.filter((payment) => payment.status === 'succeeded').map((payment) => payment.id),
  ]);
  const payable = openSessions({ ...link, psp_session: null }, payments, now).filter(
    (session) => session.payment_id !== replacing,
  );
  if (succeeded.size + payable.length >= cap) {
    // A session past its end whose money is under way frees its place only when its PSP settles it: no time known.
    const ends = payable
      .map((session) => Date.parse(session.expires_at))
      .filter((end) => end > now.getTime());
    return { kind: 'wait', reason: 'full', until: ends.length > 0 ? new Date(Math.min(...ends)) : null };
  }
  // The places are what holds under concurrency; the count above also covers sessions opened before them.
  const places = placesOf(link, payments, now, replacing);
  if (!hasPlaces(link) || places.free.length > 0) return undefined;
  return { kind: 'wait', reason: 'full', until: places.firstFree };
}

/**
 * Whether an attempt recorded these answers (`answers`, as posted now; undefined: nothing posted, nothing to
 * compare): the same details, custom fields and quantities, in whatever key order they were stored. A session at
 * other answers is replaced, as one at another amount is (docs/checkout.md#before-you-pay-our-form).
 */
export function sameAnswers(
  attempt: { buyer?: unknown; custom_fields?: unknown; quantities?: unknown } | undefined,
  answers: CheckoutAnswers | undefined,
): boolean {
  if (answers === undefined) return true;
  const asked = ({ buyer, custom_fields, quantities }: NonNullable<typeof attempt>) => ({
    buyer,
    custom_fields,
    quantities,
  });
  // Through JSON, so that an absent answer and one stored as undefined read alike.
  const plain = (value: object) => JSON.parse(JSON.stringify(value));
  return isDeepStrictEqual(plain(attempt ? asked(attempt) : {}), plain(asked(answers)));
}

const sameAmount = (a: Amount, b: Amount): boolean =>
  a.currency === b.currency && toMinorUnits(a) === toMinorUnits(b);

/**
 * The amount a link is routed on in this request (docs/orchestration.md#routing): the link's own, or for a
 * buyer-chosen amount the one chosen in this request; before one is chosen, the amount of the attempt the link
 * shows or of its latest attempt, else the range's suggested amount, else its minimum. Those stand-ins only
 * decide whether an open attempt is still served and whether another provider can be offered: a session is
 * opened only at an amount the buyer chose, routed on that amount.
 */
export function amountAtStake(
  link: PaymentLink,
  payments: readonly Payment[],
  chosen: Amount | undefined,
  buyerPayment?: string,
): Amount {
  if (chosen) return chosen;
  if (link.amount_kind !== 'range') return link.amount;
  const range = link.amount_range;
  // A reusable link's attempts are each buyer's own: only this buyer's says anything about them.
  const own = link.reusable ? payments.filter((payment) => payment.id === buyerPayment) : payments;
  const shown = link.reusable ? undefined : link.psp_session;
  const ofShown = own.find((payment) => payment.id === shown?.payment_id)?.amount ?? shown?.amount;
  const latest = own.find((payment) => payment.amount !== undefined)?.amount;
  return ofShown ?? latest ?? { value: range.suggested ?? range.minimum, currency: range.currency };
}
