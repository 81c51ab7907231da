import { type Amount, toMinorUnits } from './money.ts';
import type { ReportedFees } from './outcomes.ts';

/**
 * The fee cost and value routing expect of a connection (docs/orchestration.md#fees): learned from the fees its PSP
 * reported for payments in the link's segment over the last 24 hours once there are `MIN_REPORTED_FEES` of them,
 * else estimated from the connection's fee lines. Pure.
 */

/**
 * Below this many reported fees in a segment, their mean says too little (one refund adjustment, one cross-border
 * card) to outweigh the fee lines the merchant configured.
 */
export const MIN_REPORTED_FEES = 20;

/** Where a decision's expected fee comes from: the fees the PSP reported, or the connection's fee lines. */
export const FEE_BASES = ['reported', 'configured'] as const;
export type FeeBasis = (typeof FEE_BASES)[number];

export interface FeeEstimate {
  /** In major units of the link's currency; null: no fee line applies and too few fees were reported. */
  expected_fee: number | null;
  /** Null with `expected_fee`. */
  fee_basis: FeeBasis | null;
}

/**
 * The fee a payment of `amount` is expected to cost: with at least `MIN_REPORTED_FEES` reported in its segment, the
 * share of their amounts that went to fees, applied to `amount` (a fixed part per payment is spread over the
 * segment's amounts, whose band spans a factor of ten at most); else `configured`, the fee lines' estimate.
 */
export function feeEstimate(
  configured: number | null,
  reported: ReportedFees | undefined,
  amount: Amount,
): FeeEstimate {
  if (reported && reported.count >= MIN_REPORTED_FEES && reported.amount_minor > 0) {
    const share = reported.fee_minor / reported.amount_minor;
    return {
      expected_fee: Math.round(Number(amount.value) * share * 10_000) / 10_000,
      fee_basis: 'reported',
    };
  }
  return { expected_fee: configured, fee_basis: configured === null ? null : 'configured' };
}

/**
 * What a payment adds to its connection's reported fees: its fee as its PSP reported it, in the payment's own
 * currency. A fee the PSP states in the currency it settles in cannot be set against the amount: it is left out,
 * as are configured fees (the estimate itself) and amounts that do not read.
 */
export function reportedFeeOf(payment: {
  amount?: Amount | undefined;
  fee?: { amount: Amount; source: 'reported' | 'configured' } | undefined;
}): ReportedFees | undefined {
  const { amount, fee } = payment;
  if (!amount || fee?.source !== 'reported' || fee.amount.currency !== amount.currency) return undefined;
  try {
    return {
      count: 1,
      amount_minor: Number(toMinorUnits(amount)),
      fee_minor: Number(toMinorUnits(fee.amount)),
    };
  } catch {
    return undefined;
  }
}
