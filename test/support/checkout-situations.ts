import type { AmountRange } from '../../functions/domain/amount.ts';
import type { CheckoutSituation } from '../../functions/domain/checkout/step.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { newPaymentId, type Payment, settle, startedPayment } from '../../functions/domain/payment.ts';
import { type LinkSession, newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { storedConnection } from './psp-fixtures.ts';

// The checkout's decision in the domain (functions/domain/checkout/step.ts) as its unit tests pose it: a fixed clock,
// two connections, attempts at them, and the situation a visit is decided in.

export const now = new Date('2026-01-01T10:00:00Z');
export const a = storedConnection('acmepay', 'test', 'pc_a');
export const b = storedConnection('otherpay', 'test', 'pc_b');
export const inOneHour = new Date(now.getTime() + 3_600_000).toISOString();

/** An attempt at `connection` started `minutesAgo`, its session open for another hour, with its page. */
export function attempt(
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

export const sessionOf = (payment: Payment): LinkSession => ({
  provider: payment.provider,
  connection_id: payment.connection_id,
  payment_id: payment.id,
  id: payment.session_id as string,
  url: payment.session_url as string,
  expires_at: payment.session_expires_at as string,
  amount: payment.amount!,
});

export const recoveryDecision = {
  rule: 'learn',
  strategy: 'conversion' as const,
  segment: { currency: 'EUR', payment_method: 'any' as const, amount_band: '10-100' as const },
  candidates: [],
  chosen: 'pc_b',
  exploration: false,
  recovery: true,
  holdout: false,
};

export const declined = (payment: Payment) =>
  settle(payment, { state: 'failed', failure: null, reference: null }, now) as Payment;

export function situation(changes: Partial<CheckoutSituation> & { link: PaymentLink }): CheckoutSituation {
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

/** The link with a buyer-chosen amount instead of its own. */
export const withRange = (link: PaymentLink, amount_range: AmountRange) =>
  ({ ...link, amount_kind: 'range', amount: null, line_items: null, amount_range }) satisfies PaymentLink;

/** A reusable link (docs/orchestration.md#reusable-links). */
export const reusableLink = (maxPayments?: number): PaymentLink =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount: { value: '5.00', currency: 'EUR' }, reusable: true, max_payments: maxPayments },
    now,
  );
