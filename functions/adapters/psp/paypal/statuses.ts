import type { Money, Order, OrdersCapture, Refund } from '@paypal/paypal-server-sdk';
import type { BuyerDetails } from '../../../domain/buyer.ts';
import { buyerDetails } from '../../../domain/buyer-details.ts';
import { type Amount, minorUnits } from '../../../domain/money.ts';
import type { FeeReport } from '../../../domain/payment-money.ts';
import { pspMinorUnits } from '../../../domain/psp-rules.ts';
import type {
  PspNotification,
  PspRefundRequest,
  PspRefundStatus,
  PspSessionStatus,
} from '../../../ports/psp.ts';
import type { paypal } from './descriptor.ts';

/**
 * What an order's status means for the attempt (Orders v2 `status`, and its capture's): `CREATED`,
 * `PAYER_ACTION_REQUIRED` and `SAVED` await the buyer's approval; `APPROVED` awaits our capture; `COMPLETED` is
 * paid once its capture is `COMPLETED` (`PENDING`: PayPal is still reviewing it; `DECLINED` or `FAILED`: the
 * attempt failed); `VOIDED` is over unpaid. The amount is the capture's once there is one (what PayPal took),
 * else the order's (what a capture would take).
 */
export function paypalOrderStatus(order: Order, livemode: boolean): PspSessionStatus {
  const unit = order.purchaseUnits?.[0];
  const capture = unit?.payments?.captures?.[0];
  const charged = capture?.amount ?? unit?.amount;
  const base = {
    id: order.id ?? '',
    paymentId: unit?.invoiceId ?? null,
    linkId: unit?.customId ?? null,
    paymentReference: null,
    failure: null,
    amount: charged ? { value: charged.value, currency: charged.currencyCode } : null,
    livemode,
  };
  switch (order.status) {
    case 'APPROVED':
      return { ...base, state: 'pending', deferredCapture: 'approved' };
    case 'VOIDED':
      return {
        ...base,
        state: 'canceled',
        failure: { code: 'canceled', message: 'The PayPal order was voided.' },
      };
    case 'COMPLETED': {
      const settled = captureState(capture?.status);
      const fee = settled.state === 'succeeded' ? captureFee(capture) : undefined;
      return { ...base, ...settled, paymentReference: capture?.id ?? null, ...(fee ? { fee } : {}) };
    }
    default:
      return { ...base, state: 'pending', deferredCapture: 'awaiting_approval' };
  }
}

/**
 * What PayPal says of the payer of a captured order (`payment_source.paypal`, or the deprecated `payer` of older answers): the PayPal
 * account's e-mail and name, its phone when the account shares it, and the shipping address of the purchase unit
 * when one was asked (never, as orders are created today: `NO_SHIPPING`). The account's address is a country
 * alone, no postal address.
 */
export async function paypalBuyer(order: Order): Promise<{ buyer?: BuyerDetails }> {
  const wallet = order.paymentSource?.paypal;
  const payer = order.payer;
  const name = wallet?.name ?? payer?.name;
  const shipping = order.purchaseUnits?.[0]?.shipping;
  const country = wallet?.address?.countryCode ?? payer?.address?.countryCode;
  const buyer = await buyerDetails({
    email: wallet?.emailAddress ?? payer?.emailAddress,
    name: [name?.givenName, name?.surname].filter(Boolean).join(' '),
    phone: (wallet?.phoneNumber ?? payer?.phone?.phoneNumber)?.nationalNumber,
    shipping_address: shipping?.address && {
      line1: shipping.address.addressLine1,
      line2: shipping.address.addressLine2,
      city: shipping.address.adminArea2,
      state: shipping.address.adminArea1,
      postal_code: shipping.address.postalCode,
      country: shipping.address.countryCode,
    },
    phone_country: country,
  });
  return buyer ? { buyer } : {};
}

/**
 * What PayPal kept of a capture and credits for it (`seller_receivable_breakdown`: `paypal_fee`, `net_amount`, in
 * the capture's currency), when its answer breaks it down.
 */
function captureFee(capture: OrdersCapture | undefined): FeeReport | undefined {
  const breakdown = capture?.sellerReceivableBreakdown;
  const money = (amount: Money | undefined) =>
    amount && { value: amount.value, currency: amount.currencyCode };
  const report = { fee: money(breakdown?.paypalFee), net: money(breakdown?.netAmount) };
  return report.fee || report.net ? report : undefined;
}

function captureState(status: string | undefined): Pick<PspSessionStatus, 'state' | 'failure'> {
  if (status === 'COMPLETED' || status === 'REFUNDED' || status === 'PARTIALLY_REFUNDED') {
    return { state: 'succeeded', failure: null };
  }
  if (status === 'DECLINED' || status === 'FAILED') {
    return { state: 'failed', failure: { code: 'declined', message: `The PayPal capture was ${status}.` } };
  }
  return { state: 'pending', failure: null };
}

/** A refund as PayPal states it; our ids come back as its `invoice_id` (refund) and `custom_id` (link). */
export function paypalRefundStatus(
  refund: Refund,
  sent?: Pick<PspRefundRequest, 'refundId' | 'linkId'>,
): PspRefundStatus {
  const state =
    refund.status === 'COMPLETED'
      ? 'succeeded'
      : refund.status === 'FAILED' || refund.status === 'CANCELLED'
        ? 'failed'
        : 'pending';
  return {
    reference: refund.id ?? '',
    refundId: refund.invoiceId ?? sent?.refundId ?? null,
    linkId: refund.customId ?? sent?.linkId ?? null,
    state,
    failureMessage: state === 'failed' ? `The PayPal refund is ${refund.status}.` : null,
  };
}

/**
 * A verified webhook event, reduced to what it names: an order (`CHECKOUT.ORDER.*`: the resource; a capture's
 * `PAYMENT.CAPTURE.*`: the order in its `supplementary_data.related_ids`), or a refund (`PAYMENT.CAPTURE.REFUNDED`
 * and `REVERSED`, whose resource is the refund). Anything else names nothing and is acknowledged.
 */
export function paypalNotification(event: Record<string, unknown>, livemode: boolean): PspNotification {
  const type = typeof event.event_type === 'string' ? event.event_type : 'unknown';
  const resource = (event.resource ?? {}) as {
    id?: unknown;
    supplementary_data?: { related_ids?: { order_id?: unknown } };
  };
  const id = typeof resource.id === 'string' ? resource.id : null;
  const orderId = resource.supplementary_data?.related_ids?.order_id;
  const named = { type, sessionId: null, refundReference: null, livemode };
  if (type === 'PAYMENT.CAPTURE.REFUNDED' || type === 'PAYMENT.CAPTURE.REVERSED') {
    return { ...named, refundReference: id };
  }
  if (type.startsWith('CHECKOUT.ORDER.')) return { ...named, sessionId: id };
  if (type.startsWith('PAYMENT.CAPTURE.')) {
    return { ...named, sessionId: typeof orderId === 'string' ? orderId : null };
  }
  return named;
}

/** The amount as PayPal's `value`: a decimal string with PayPal's decimals of the currency ("10.50", "500"). */
export function paypalValue(descriptor: typeof paypal, amount: Amount): string {
  const digits = descriptor.amounts.exponents?.[amount.currency] ?? minorUnits(amount.currency) ?? 2;
  const minor = pspMinorUnits(descriptor.amounts, amount)
    .toString()
    .padStart(digits + 1, '0');
  return digits === 0 ? minor : `${minor.slice(0, -digits)}.${minor.slice(-digits)}`;
}

/** An amount as PayPal's `money`. */
export const paypalMoney = (descriptor: typeof paypal, amount: Amount) => ({
  currencyCode: amount.currency,
  value: paypalValue(descriptor, amount),
});
