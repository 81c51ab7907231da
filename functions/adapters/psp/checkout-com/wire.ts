import type { LineItem } from '../../../domain/amount.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import { toMinorUnits } from '../../../domain/money.ts';
import type { PspSessionStatus } from '../../../ports/psp.ts';
import { declineOf } from '../kit/declines.ts';
import type { checkoutCom } from './descriptor.ts';

/**
 * Checkout.com's wire format as the adapter reads it (test/contract/checkout.trimmed.json): the payment link
 * (`GetPaymentLinkResponse`), the payment (`Payment`), its actions (`PaymentAction`) and a webhook's body.
 */
export interface CkoPaymentLink {
  id: string;
  status: 'Active' | 'Payment Received' | 'Expired';
  payment_id?: string;
  amount: number;
  currency: string;
  reference?: string;
  expires_on: string;
  metadata?: Record<string, unknown>;
  _links?: { redirect?: { href: string } };
}

export interface CkoPayment {
  id: string;
  status: string;
  amount: number;
  currency: string;
  reference?: string;
  approved?: boolean;
  metadata?: Record<string, unknown>;
}

export interface CkoAction {
  id: string;
  type: string;
  approved?: boolean;
  response_code?: string;
  response_summary?: string;
  reference?: string;
  metadata?: Record<string, unknown>;
}

export interface CkoWebhook {
  id: string;
  type: string;
  data: { id?: string; action_id?: string; reference?: string; metadata?: Record<string, unknown> };
}

/** The webhook body, or `InvalidNotificationError` when it is not one (checked after its signature). */
export function ckoWebhookOf(rawBody: string): CkoWebhook {
  let body: Partial<CkoWebhook> | null;
  try {
    body = JSON.parse(rawBody) as Partial<CkoWebhook> | null;
  } catch {
    body = null;
  }
  if (!body || typeof body.type !== 'string' || typeof body.data !== 'object' || body.data === null) {
    throw new InvalidNotificationError('A Checkout.com notification without a type and data.');
  }
  return body as CkoWebhook;
}

/** The refund events: each names the payment (`data.id`) and the refund's action (`data.action_id`). */
export const CKO_REFUND_EVENTS: ReadonlySet<string> = new Set([
  'payment_refunded',
  'payment_refund_declined',
  'payment_refund_pending',
]);

/** Our refund reference at Checkout.com: its payment and the refund's action, both needed to read it back. */
export const ckoRefundReference = (paymentId: string, actionId: string): string => `${paymentId}/${actionId}`;

export function parseCkoRefundReference(
  reference: string,
): { paymentId: string; actionId: string } | undefined {
  const [paymentId, actionId, ...rest] = reference.split('/');
  return paymentId && actionId && rest.length === 0 ? { paymentId, actionId } : undefined;
}

/** Payments that moved the money: captured, whatever was refunded after. */
const SETTLED = new Set(['Captured', 'Partially Captured', 'Paid', 'Partially Refunded', 'Refunded']);

/**
 * A payment's state as ours: captured is paid; authorized awaits our capture (deferred capture); declined fails
 * the attempt, with its authorization's `declineCode` through the descriptor's table (the link may still take a payment at Checkout.com, which would then be released and voided);
 * voided or canceled ends it; anything else is still on its way.
 */
export function paymentStateOf(
  descriptor: typeof checkoutCom,
  payment: CkoPayment,
  declineCode?: string,
): Pick<PspSessionStatus, 'state' | 'failure' | 'deferredCapture' | 'paymentReference'> {
  if (SETTLED.has(payment.status)) {
    return { state: 'succeeded', failure: null, paymentReference: payment.id };
  }
  if (payment.status === 'Authorized') {
    return { state: 'pending', failure: null, deferredCapture: 'approved', paymentReference: null };
  }
  if (payment.status === 'Declined') {
    const failure = declineOf(descriptor, declineCode, 'Checkout.com declined the payment.');
    return { state: 'failed', failure, paymentReference: null };
  }
  if (['Voided', 'Canceled', 'Expired'].includes(payment.status)) {
    const failure = { code: 'canceled' as const, message: `The Checkout.com payment is ${payment.status}.` };
    return { state: 'canceled', failure, paymentReference: null };
  }
  return { state: 'pending', failure: null, deferredCapture: 'awaiting_approval', paymentReference: null };
}

/** A link no payment was made on: open to the buyer, or expired. */
export function unpaidLinkStateOf(
  link: CkoPaymentLink,
): Pick<PspSessionStatus, 'state' | 'failure' | 'deferredCapture' | 'paymentReference'> {
  if (link.status === 'Expired') {
    const failure = { code: 'expired' as const, message: 'The Checkout.com payment link expired unpaid.' };
    return { state: 'expired', failure, paymentReference: null };
  }
  return { state: 'pending', failure: null, deferredCapture: 'awaiting_approval', paymentReference: null };
}

/** The locales a payment link's page speaks (`PaymentLinksRequest.locale`). */
const CKO_LOCALES = [
  'de-DE',
  'en-GB',
  'fr-FR',
  'it-IT',
  'nl-NL',
  'es-ES',
  'zh-HK',
  'zh-TW',
  'zh-CN',
  'ja-JP',
  'fil-PH',
  'id-ID',
  'ms-MY',
  'th-TH',
  'vi-VN',
  'hi-IN',
];

/** Our locale tag as one of Checkout.com's: the same tag, else its language's, else English. */
export function checkoutLocale(tag: string): string {
  if (CKO_LOCALES.includes(tag)) return tag;
  const language = tag.slice(0, 2);
  return CKO_LOCALES.find((locale) => locale.startsWith(`${language}-`)) ?? 'en-GB';
}

const DEFAULT_COUNTRY: Record<string, string> = {
  nl: 'NL',
  de: 'DE',
  fr: 'FR',
  it: 'IT',
  es: 'ES',
  en: 'GB',
};

/**
 * The billing country a payment link requires (`billing.address.country`), which with the currency decides the
 * methods its page offers: the region of the buyer's locale (`nl-BE`: BE), else its language's country.
 */
export function billingCountry(tag: string): string {
  const region = /^[a-z]{2}-([A-Z]{2})$/.exec(tag)?.[1];
  return region ?? DEFAULT_COUNTRY[tag.slice(0, 2)] ?? 'GB';
}

/**
 * A line as a payment link's `products` item: its unit price in minor units, tax included (a product has no
 * field of its own for the tax).
 */
export function checkoutProduct(item: LineItem) {
  return { name: item.name, quantity: item.quantity, price: Number(toMinorUnits(item.unit_amount)) };
}
