import { HOUR_MS, type Outcome, outcomeOf } from './outcomes.ts';
import type { Payment } from './payment.ts';

/**
 * How much each outcome weighs in what learning reads (docs/orchestration.md#outcomes-nobody-can-poison), so that
 * a few clients cannot steer a merchant's buyers: a decline the PSP reported is evidence about the connection; a
 * session left without one (expired, canceled, replaced) costs nobody anything to make, and counts for less; and a
 * client counts at most one unpaid outcome per connection in `CLIENT_WINDOW_MS`, since more from one client say
 * more about the client (a card that keeps failing, or an attacker) than about the connection. Pure. An `outage`
 * (the PSP failed, not the buyer) is counted apart from declines and is no evidence against the connection's paid
 * share (`decided`, functions/domain/outcomes.ts).
 */
export const OUTCOME_WEIGHTS: Readonly<Record<Outcome, number>> = Object.freeze({
  opened: 1,
  paid: 1,
  failed: 1,
  left: 0.5,
  // Counted apart, never in a paid share (`decided`): its weight only says it is not a flood's to ignore.
  outage: 1,
});

/** The window in which one client's unpaid outcomes at one connection are looked at together. */
export const CLIENT_WINDOW_MS = HOUR_MS;

/**
 * How far back (by their opening) a link's payments are read to find a client's earlier outcomes: those decided
 * in the two windows before an outcome (the second to know whether the first of them counted), with an hour more
 * for a session a buyer kept open that long. An older one is not seen, and the outcome counts.
 */
export const CLIENT_LOOKBACK_MS = 3 * CLIENT_WINDOW_MS;

const isUnpaid = (outcome: Outcome | undefined): outcome is 'failed' | 'left' =>
  outcome === 'failed' || outcome === 'left';

/** What an ended payment's outcome was: paid, failed or left (undefined while it is pending or never opened). */
export function endedOutcome(
  payment: Pick<Payment, 'status' | 'session_id' | 'failure'>,
): Outcome | undefined {
  // A failed opening never had a session: health, not an outcome.
  if (payment.session_id === null) return undefined;
  return outcomeOf(payment, { status: 'pending', session_id: payment.session_id });
}

/**
 * How one outcome counts for learning:
 * - `count`: at `weight`;
 * - `flood`: not at all, the client having had another unpaid outcome at the connection within the window; the
 *   first time (`takeBack`), that earlier outcome, which did count, is taken back too, so that a client that
 *   floods ends up counting nothing.
 */
export type Weighing =
  | { kind: 'count'; weight: number }
  | { kind: 'flood'; takeBack: { payment: Payment; outcome: Outcome; weight: number } | undefined };

/**
 * How `payment`'s `outcome` counts, given its link's payments of the last `CLIENT_LOOKBACK_MS` (it may be among
 * them). One client is the payment's `opened_by` (`clientKey`: the buyer's cookie on a reusable link, else their
 * address, salted with the link). Paid outcomes always count: each costs its payer the amount.
 */
export function weighOutcome(payment: Payment, outcome: Outcome, linkPayments: readonly Payment[]): Weighing {
  const weight = OUTCOME_WEIGHTS[outcome];
  if (!isUnpaid(outcome) || payment.opened_by === undefined) return { kind: 'count', weight };
  const earlier = earlierUnpaid(payment, linkPayments);
  if (earlier.length === 0) return { kind: 'count', weight };
  const first = earlier[0] as Payment;
  // Only the client's first unpaid outcome counted, and only if none came before it in its own window.
  if (earlier.length > 1 || earlierUnpaid(first, linkPayments).length > 0)
    return { kind: 'flood', takeBack: undefined };
  const firstOutcome = endedOutcome(first) as Outcome;
  return {
    kind: 'flood',
    takeBack: { payment: first, outcome: firstOutcome, weight: OUTCOME_WEIGHTS[firstOutcome] },
  };
}

/** The same client's unpaid outcomes at the same connection in the window before `payment`'s, oldest first. */
function earlierUnpaid(payment: Payment, linkPayments: readonly Payment[]): Payment[] {
  const at = Date.parse(payment.updated_at);
  // Outcomes at the same instant are ordered by id, so that each of two sees the other on the same side.
  const before = (other: Payment) =>
    other.updated_at < payment.updated_at ||
    (other.updated_at === payment.updated_at && other.id < payment.id);
  return linkPayments
    .filter(
      (other) =>
        other.id !== payment.id &&
        other.opened_by === payment.opened_by &&
        other.connection_id === payment.connection_id &&
        Date.parse(other.updated_at) > at - CLIENT_WINDOW_MS &&
        before(other) &&
        isUnpaid(endedOutcome(other)),
    )
    .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id));
}
