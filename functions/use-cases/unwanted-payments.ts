import { createHash } from 'node:crypto';
import { idFromBytes } from '../domain/ids.ts';
import type { Payment } from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { logger } from '../logger.ts';
import { createRefund, type RefundDependencies } from './refunds.ts';

/**
 * Refunds in full a payment that pays nothing, through the refunds of its link as a merchant's refund of a duplicate
 * payment goes (`createRefund`, reason `duplicate`: `refund.succeeded` or `refund.failed` tells the merchant), under
 * an id derived from the payment: every path that records it (copies of its notification, the sweeper) asks for the
 * same refund, made once. A refund the PSP has not answered stays pending for the refund sweeper.
 */
export async function refundUnwanted(
  deps: RefundDependencies,
  link: PaymentLink,
  payment: Payment,
): Promise<void> {
  const refundId = unwantedPaymentRefundId(payment.id);
  // Refunded when an earlier copy recorded it: nothing more to ask.
  if (link.refunds.some((refund) => refund.id === refundId)) return;
  const refund = await createRefund(
    deps,
    { account: link.account, mode: link.mode },
    link.id,
    undefined,
    refundId,
    payment.id,
    { reason: 'duplicate' },
  );
  logger.warn('An update link was paid after its subscription ended: the payment is refunded', {
    subscription_id: link.subscription_update?.subscription_id,
    link_id: link.id,
    payment_id: payment.id,
    refund_id: refund.id,
    refund_status: refund.status,
  });
}

/** Our id of the refund of an update link's payment that paid nothing: the same for every path that records it. */
export const unwantedPaymentRefundId = (paymentId: string): string =>
  idFromBytes('re', createHash('sha256').update(`ended-subscription-payment\0${paymentId}`).digest());
