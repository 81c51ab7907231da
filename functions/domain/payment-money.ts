import type { FeeLine } from './connection.ts';
import { type Amount, fromMinorUnits, minorUnits, toMinorUnits } from './money.ts';
import type { PaymentMethod } from './payment-methods.ts';
import { feeLineFor } from './strategies.ts';

/**
 * What a payment leaves the merchant (docs/api.md#fees-and-refunds-of-a-payment): what its refunds gave back and
 * what its PSP charged for it. Pure.
 */

/**
 * Where a payment's fee comes from: `reported` by its PSP (its balance transaction, settlement, breakdown), or
 * `configured`, an estimate from the connection's fee lines (`npm run psp -- fees`) where no PSP reports it.
 */
export const FEE_SOURCES = ['reported', 'configured'] as const;
export type FeeSource = (typeof FEE_SOURCES)[number];

/**
 * A succeeded payment's fee and net, each with its own currency: a PSP that settles in another currency than the
 * payment's reports both in that one. `net` is what the PSP credits for the payment, before any refund.
 */
export interface PaymentFee {
  amount: Amount;
  net: Amount;
  source: FeeSource;
}

/** How much of a succeeded payment its succeeded refunds gave back: nothing, part of it, or all of it. */
export const REFUND_STATES = ['none', 'partial', 'full'] as const;
export type RefundState = (typeof REFUND_STATES)[number];

export function refundStateOf(paidMinor: bigint, refundedMinor: bigint): RefundState {
  if (refundedMinor <= 0n) return 'none';
  return refundedMinor >= paidMinor ? 'full' : 'partial';
}

/** A fee line's percent and fixed part are decimals of at most 6 places (`npm run psp -- fees`). */
const MICRO = 1_000_000n;
const micro = (value: number) => BigInt(Math.round(value * 1_000_000));

/**
 * The estimate of a payment's fee from its connection's fee lines (the line `feeLineFor` picks for its currency
 * and method): `percent` of the amount plus `fixed`, rounded half up once, to the currency's minor units, and
 * never more than the amount itself (so `net` is never negative). Undefined when no line applies.
 */
export function configuredFee(
  lines: readonly FeeLine[] | null | undefined,
  amount: Amount,
  method: PaymentMethod | undefined,
): PaymentFee | undefined {
  const line = feeLineFor(lines, amount.currency, method);
  const digits = minorUnits(amount.currency);
  if (!line || digits === undefined) return undefined;
  const amountMinor = toMinorUnits(amount);
  // Over a common denominator of 100 × 10^6: the percent's millionths of the amount, the fixed part's millionths.
  const denominator = 100n * MICRO;
  const numerator = amountMinor * micro(line.percent) + micro(line.fixed) * 10n ** BigInt(digits) * 100n;
  const rounded = (numerator + denominator / 2n) / denominator;
  const feeMinor = rounded > amountMinor ? amountMinor : rounded;
  return {
    amount: { value: fromMinorUnits(feeMinor, amount.currency), currency: amount.currency },
    net: { value: fromMinorUnits(amountMinor - feeMinor, amount.currency), currency: amount.currency },
    source: 'configured',
  };
}

/** What a PSP reports of a payment's fee (`PspSessionStatus.fee`): its fee, what it credits, or both. */
export interface FeeReport {
  fee?: Amount;
  net?: Amount;
}

/**
 * The fee a PSP reported for a payment of `amount`: both parts as the PSP gave them when it gave both (its own
 * currency, which may be the one it settles in); otherwise the missing part is `amount` less the given one, in the
 * payment's currency. Undefined when it cannot be trusted (one part alone in another currency or above the amount,
 * a part below zero or with more decimals than its currency carries), so that the configured estimate applies.
 */
export function reportedFee(amount: Amount, report: FeeReport | undefined): PaymentFee | undefined {
  if (report?.fee && report.net) {
    const readable = [report.fee, report.net].every((part) => (minorOf(part) ?? -1n) >= 0n);
    return readable ? { amount: report.fee, net: report.net, source: 'reported' } : undefined;
  }
  const given = report?.fee ?? report?.net;
  const amountMinor = minorOf(amount);
  const givenMinor = given?.currency === amount.currency ? minorOf(given) : undefined;
  if (amountMinor === undefined || givenMinor === undefined || givenMinor < 0n || givenMinor > amountMinor) {
    return undefined;
  }
  const rest = {
    value: fromMinorUnits(amountMinor - givenMinor, amount.currency),
    currency: amount.currency,
  };
  const exact = { value: fromMinorUnits(givenMinor, amount.currency), currency: amount.currency };
  return report?.fee
    ? { amount: exact, net: rest, source: 'reported' }
    : { amount: rest, net: exact, source: 'reported' };
}

function minorOf(amount: Amount): bigint | undefined {
  try {
    return toMinorUnits(amount);
  } catch {
    return undefined;
  }
}

/** The one method a link allows, which a fee line may be specific to; undefined when it allows several. */
export const onlyMethodOf = (link: { payment_methods: readonly PaymentMethod[] | null }) =>
  link.payment_methods?.length === 1 ? link.payment_methods[0] : undefined;

/** A payment's refunds and fee as the API shows them (`PaymentResource`). */
export interface PaymentMoney {
  /** What its succeeded refunds gave back, in its currency: "0.00" until then. */
  amount_refunded: Amount;
  refund_status: RefundState;
  fee: Amount | null;
  net: Amount | null;
  fee_source: FeeSource | null;
}

/**
 * The money fields of a payment of `amount` that refunds gave `refundedMinor` back of, with its fee when known.
 * Only a succeeded payment moved money: another has nothing refunded and no fee.
 */
export function paymentMoney(
  amount: Amount,
  refundedMinor: number,
  fee: PaymentFee | undefined,
): PaymentMoney {
  const refunded = BigInt(refundedMinor);
  return {
    amount_refunded: { value: fromMinorUnits(refunded, amount.currency), currency: amount.currency },
    refund_status: refundStateOf(toMinorUnits(amount), refunded),
    fee: fee?.amount ?? null,
    net: fee?.net ?? null,
    fee_source: fee?.source ?? null,
  };
}
