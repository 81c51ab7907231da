import type { Payment } from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { SESSION_WINDOW_MS } from '../domain/session-budgets.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';

/**
 * The longest a PSP session opened by `sessionExpiry` lasts: no adapter's `sessionLimits` allows more
 * (test/unit/session-lifetimes.test.ts). A session opened earlier can no longer be paid.
 */
export const LONGEST_SESSION_MS = 24 * 3_600_000;

/**
 * How far back a reusable link's checkout decision looks at payments: the budgets count the last hour, and a
 * payable session is at most `LONGEST_SESSION_MS` old; a minute more, since a payment's id is drawn before its
 * PSP call. The buyer's own attempt is read by its id, whatever its age.
 */
export const DECISION_LOOKBACK_MS = Math.max(SESSION_WINDOW_MS, LONGEST_SESSION_MS) + 60_000;

/**
 * The payments the decision reads: a reusable link whose payments are in creation order reads only those of the
 * last `DECISION_LOOKBACK_MS` (every session the budgets count, every session still payable) and the buyer's own
 * attempt, so a visit reads a bounded number of items however many payments the link took; any other link reads
 * all of its payments.
 */
export async function paymentsToDecideOn(
  deps: { payments: PaymentRepository; now: () => Date },
  link: PaymentLink,
  buyerPayment: string | undefined,
): Promise<Payment[]> {
  if (!link.payments_in_order) return deps.payments.listOfLink(link.id, link.mode);
  const since = new Date(deps.now().getTime() - DECISION_LOOKBACK_MS);
  const [recent, own] = await Promise.all([
    deps.payments.listOfLinkSince(link.id, link.mode, since),
    buyerPayment === undefined ? undefined : deps.payments.get(link.id, link.mode, buyerPayment),
  ]);
  if (!own || recent.some((payment) => payment.id === own.id)) return recent;
  return [...recent, own].sort(
    (a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
  );
}
