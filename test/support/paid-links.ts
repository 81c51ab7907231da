import type { Provider } from '../../functions/domain/connection.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { firstRefundCheckAt, type requestRefund } from '../../functions/domain/refund.ts';

// Links paid in the domain, and reserved for refunds as the repository would, for the refund unit tests
// (test/unit/refund.test.ts, reusable-link-refunds.test.ts).

export const now = new Date('2026-03-01T10:00:00Z');

export function paidLink(value = '10.00', currency = 'EUR', provider: Provider = 'sandbox'): PaymentLink {
  const open = newPaymentLink({ account: 'acme', mode: 'test' }, { amount: { value, currency } }, now);
  return (
    markPaid(
      open,
      {
        id: 'pay_1',
        connection_id: 'pc_sandbox',
        provider,
        reference: 'sbpay_1',
        amount: { value, currency },
      },
      now,
    ) as { after: PaymentLink }
  ).after;
}

/** The link as the repository leaves it after reserving `refund` (what `reserveRefund` writes). */
export function reserved(
  link: PaymentLink,
  refund: ReturnType<typeof requestRefund>,
  minor: number,
): PaymentLink {
  return {
    ...link,
    refunds: [...link.refunds, refund],
    refund_reserved_minor: link.refund_reserved_minor + minor,
    refund_check_at: firstRefundCheckAt(now),
    refund_checks: 0,
    version: link.version + 1,
  };
}
