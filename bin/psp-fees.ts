import type { FeeLine } from '../functions/domain/connection.ts';
import { isPayableCurrency } from '../functions/domain/money.ts';
import { isPaymentMethod, PAYMENT_METHODS } from '../functions/domain/payment-methods.ts';

/**
 * `npm run psp -- fees <id> --percent P --fixed F [--currency C] [--method M]` (docs/orchestration.md#fees): one
 * fee line, which replaces the connection's line for the same currency and method and keeps the others.
 */
export interface FeeFlags {
  percent?: string | undefined;
  fixed?: string | undefined;
  currency?: string | undefined;
  method?: string | undefined;
}

const DECIMAL = /^\d{1,7}(\.\d{1,6})?$/;

/** The line the flags describe, or the reason they do not describe one. */
export function feeLineOf(flags: FeeFlags): FeeLine | string {
  if (!flags.percent || !DECIMAL.test(flags.percent) || Number(flags.percent) > 100) {
    return '--percent must be a decimal from 0 to 100, e.g. 1.4.';
  }
  if (!flags.fixed || !DECIMAL.test(flags.fixed)) return '--fixed must be a decimal amount, e.g. 0.25.';
  if (flags.currency !== undefined && !isPayableCurrency(flags.currency)) {
    return '--currency must be an active ISO 4217 code such as EUR.';
  }
  if (flags.method !== undefined && !isPaymentMethod(flags.method)) {
    return `--method must be one of ${PAYMENT_METHODS.join(', ')}.`;
  }
  return {
    percent: Number(flags.percent),
    fixed: Number(flags.fixed),
    ...(flags.currency ? { currency: flags.currency } : {}),
    ...(flags.method && isPaymentMethod(flags.method) ? { method: flags.method } : {}),
  };
}

/** The connection's lines with `line` in place of the one for the same currency and method. */
export const withFeeLine = (lines: readonly FeeLine[] | null | undefined, line: FeeLine): FeeLine[] => [
  ...(lines ?? []).filter((other) => other.currency !== line.currency || other.method !== line.method),
  line,
];

/** Parses `--success-rate`: a probability in [0, 1]. */
export function successRateOf(value: string | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  const rate = Number(value);
  return /^(0(\.\d+)?|1(\.0+)?)$/.test(value) && rate >= 0 && rate <= 1
    ? rate
    : '--success-rate must be a probability from 0 to 1, e.g. 0.7.';
}
