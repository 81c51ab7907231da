import { type LineItem, linesCharging } from '../../../domain/amount.ts';
import { type Amount, toMinorUnits } from '../../../domain/money.ts';
import type { PaymentMethod } from '../../../domain/payment-methods.ts';
import { fromPspMinorUnits, pspMinorUnits } from '../../../domain/psp-rules.ts';
import type { PspRefundStatus, PspSessionStatus, SessionRequest } from '../../../ports/psp.ts';
import { declineOf } from '../kit/declines.ts';
import type { mercadopago } from './descriptor.ts';

/** Mercado Pago's wire format as the adapter reads and writes it: amounts, our ids, statuses, methods. */

/** What `GET /v1/payments/{id}` (and each search result) answers of a payment: the fields we read. */
export interface MercadoPagoPayment {
  id?: string | number;
  status?: string;
  status_detail?: string;
  external_reference?: string | null;
  transaction_amount?: number;
  currency_id?: string;
  live_mode?: boolean;
}

/** What a refund answers (`POST /v1/payments/{id}/refunds`, `GET …/refunds/{refund_id}`). */
export interface MercadoPagoRefund {
  id?: number | string;
  payment_id?: number | string;
  status?: string;
}

/** An amount as Mercado Pago's decimal number in major units: "150.75" BRL is 150.75, "1500" COP is 1500. */
export function mercadoPagoNumber(descriptor: typeof mercadopago, amount: Amount): number {
  const digits = descriptor.amounts.exponents?.[amount.currency];
  const minor = pspMinorUnits(descriptor.amounts, amount);
  return digits === 0 ? Number(minor) : Number(amount.value);
}

/**
 * Mercado Pago's decimal number as our amount, with the currency's ISO 4217 decimals; throws when it has more
 * decimals than Mercado Pago takes in that currency (it cannot have charged one).
 */
export function fromMercadoPagoNumber(
  descriptor: typeof mercadopago,
  value: number,
  currency: string,
): Amount {
  const code = currency.toUpperCase();
  const text = String(value);
  if (!/^\d+(\.\d+)?$/.test(text)) throw new Error(`${text} ${code} is no amount Mercado Pago charges`);
  const digits = descriptor.amounts.exponents?.[code];
  return fromPspMinorUnits(descriptor.amounts, toMinorUnits({ value: text, currency: code }, digits), code);
}

/**
 * Our ids as the preference's `external_reference` (echoed on its payments, and searched by): the link's and the
 * payment's, `pl_…/pay_…`. A preference takes no metadata (its document has none), and a status must name both.
 */
export const externalReference = (linkId: string, paymentId: string): string => `${linkId}/${paymentId}`;

export function ourIds(reference: string | null | undefined): {
  linkId: string | null;
  paymentId: string | null;
} {
  const match = /^(pl_[0-9A-Za-z]+)\/(pay_[0-9A-Za-z]+)$/.exec(reference ?? '');
  return { linkId: match?.[1] ?? null, paymentId: match?.[2] ?? null };
}

/** Mercado Pago charges the sum of its items: the link's lines (which add up to the amount), or one at the amount. */
export function preferenceItems(descriptor: typeof mercadopago, { link, amount }: SessionRequest) {
  const lines: readonly LineItem[] = linesCharging(link.line_items, amount) ?? [
    { name: link.description || `Payment ${link.id}`, quantity: 1, unit_amount: amount },
  ];
  return lines.map((line, index) => ({
    id: `${link.id}-${index + 1}`,
    title: line.name,
    quantity: line.quantity,
    currency_id: line.unit_amount.currency,
    unit_price: mercadoPagoNumber(descriptor, line.unit_amount),
  }));
}

/** An item of a preference as `GET /checkout/preferences/{id}` answers it: the fields its amount is made of. */
export interface PreferenceItem {
  quantity?: number;
  currency_id?: string;
  unit_price?: number;
}

/**
 * What a preference charges, the sum of its items (all in one currency, as `preferenceItems` sends them), summed in
 * minor units; null without items or with items in two currencies (not a preference of ours).
 */
export function preferenceAmount(
  descriptor: typeof mercadopago,
  items: readonly PreferenceItem[] | undefined,
): Amount | null {
  const currencies = new Set(items?.map((item) => item.currency_id?.toUpperCase()));
  const [currency] = currencies;
  if (!items?.length || currencies.size !== 1 || currency === undefined) return null;
  const minor = items.reduce(
    (sum, item) =>
      sum +
      pspMinorUnits(descriptor.amounts, fromMercadoPagoNumber(descriptor, item.unit_price ?? 0, currency)) *
        BigInt(item.quantity ?? 0),
    0n,
  );
  return fromPspMinorUnits(descriptor.amounts, minor, currency);
}

/** Its payment types, as `excluded_payment_types` names them (its own balance, `account_money`, is always offered). */
const PAYMENT_TYPES = ['credit_card', 'debit_card', 'prepaid_card', 'ticket', 'bank_transfer', 'atm'];
/** The payment types and the method of each of our words it serves (the descriptor's `methods`). */
const OFFERED: Partial<Record<PaymentMethod, { types: string[]; method?: string }>> = {
  card: { types: ['credit_card', 'debit_card', 'prepaid_card'] },
  pix: { types: ['bank_transfer'], method: 'pix' },
  boleto: { types: ['ticket'], method: 'bolbradesco' },
  oxxo: { types: ['ticket'], method: 'oxxo' },
};

/**
 * The link's methods as Checkout Pro's exclusions (it takes no list of methods to offer, only what to leave out):
 * every payment type none of them is, and our other methods of the types kept (OXXO when only boleto is asked).
 * Methods of a kept type that we have no word for stay offered. Undefined: no methods asked, or none it serves.
 */
export function excludedMethods(methods: readonly PaymentMethod[] | null) {
  const offered = (methods ?? []).flatMap((method) => OFFERED[method] ?? []);
  if (offered.length === 0) return undefined;
  const types = new Set(offered.flatMap((each) => each.types));
  const asked = new Set(offered.map((each) => each.method));
  const others = Object.values(OFFERED).filter(
    (each) => each.method && !asked.has(each.method) && each.types.some((type) => types.has(type)),
  );
  return {
    excluded_payment_types: PAYMENT_TYPES.filter((type) => !types.has(type)).map((id) => ({ id })),
    excluded_payment_methods: others.map((each) => ({ id: each.method as string })),
  };
}

/**
 * A payment's status as ours: approved (and refunded, disputed or charged back after) is paid; rejected fails the
 * attempt (the buyer may try again on the same page, which a later approval records); cancelled ends it, as
 * `expired` when that is why; pending, in_process and authorized may still be paid.
 */
export function paymentState(
  descriptor: typeof mercadopago,
  payment: MercadoPagoPayment,
): Pick<PspSessionStatus, 'state' | 'failure'> {
  switch (payment.status) {
    case 'approved':
    case 'refunded':
    case 'in_mediation':
    case 'charged_back':
      return { state: 'succeeded', failure: null };
    case 'rejected':
      return {
        state: 'failed',
        failure: declineOf(descriptor, payment.status_detail, 'Mercado Pago rejected the payment.'),
      };
    case 'cancelled':
      return payment.status_detail === 'expired'
        ? { state: 'expired', failure: { code: 'expired', message: 'The Mercado Pago payment expired.' } }
        : {
            state: 'canceled',
            failure: { code: 'canceled', message: 'The Mercado Pago payment was cancelled.' },
          };
    default:
      return { state: 'pending', failure: null };
  }
}

/** Of a preference's payments (newest first), the one that decides the attempt: a paid one, else one under way, else the newest. */
export function decidingPayment(
  descriptor: typeof mercadopago,
  payments: readonly MercadoPagoPayment[],
): MercadoPagoPayment | undefined {
  const state = (payment: MercadoPagoPayment) => paymentState(descriptor, payment).state;
  return (
    payments.find((payment) => state(payment) === 'succeeded') ??
    payments.find((payment) => state(payment) === 'pending') ??
    payments[0]
  );
}

/** A refund's status as ours: approved is done; rejected and cancelled failed; in_process and authorized pending. */
export function refundState(status: string | undefined): PspRefundStatus['state'] {
  if (status === 'approved') return 'succeeded';
  return status === 'rejected' || status === 'cancelled' ? 'failed' : 'pending';
}

/**
 * A refund's reference: the payment's id and the refund's (`GET /v1/payments/{id}/refunds/{refund_id}` needs
 * both), `<payment id>/<refund id>`.
 */
export const refundReference = (refund: MercadoPagoRefund, paymentId: string): string =>
  `${refund.payment_id ?? paymentId}/${refund.id}`;

/** ISO 8601 with an offset, as Mercado Pago's examples write its dates ("…T10:30:00.000+00:00"). */
export const mercadoPagoDate = (date: Date): string => date.toISOString().replace(/Z$/, '+00:00');
