import type { BookPayment } from './books.ts';
import { fromMinorUnits, toMinorUnits } from './money.ts';

/**
 * The totals of the books' payments per currency (`GET /v1/payments/summary`, docs/api.md#payment-totals), pure:
 * what each payment adds, and the totals as the API shows them. Only succeeded payments moved money, so only they
 * count; their fees count in their currency's totals when the fee is in that currency.
 */

/** One currency's running totals, in minor units. */
export interface CurrencyTotals {
  count: number;
  gross: bigint;
  refunded: bigint;
  fees: bigint;
  /** Succeeded payments whose fee is not known (or known in another currency): counted with no fee. */
  withoutFee: number;
}

export type Totals = Map<string, CurrencyTotals>;

const none = (): CurrencyTotals => ({ count: 0, gross: 0n, refunded: 0n, fees: 0n, withoutFee: 0 });

/** `totals` with `payment` added when it succeeded. */
export function addPayment(totals: Totals, payment: BookPayment): Totals {
  if (payment.status !== 'succeeded') return totals;
  const currency = payment.amount.currency;
  const current = totals.get(currency) ?? none();
  const fee = payment.fee?.currency === currency ? toMinorUnits(payment.fee) : undefined;
  totals.set(currency, {
    count: current.count + 1,
    gross: current.gross + toMinorUnits(payment.amount),
    refunded: current.refunded + toMinorUnits(payment.amount_refunded),
    fees: current.fees + (fee ?? 0n),
    withoutFee: current.withoutFee + (fee === undefined ? 1 : 0),
  });
  return totals;
}

/** A currency's totals as the API shows them: decimal strings in its minor units. */
export interface CurrencySummary {
  currency: string;
  count: number;
  gross: string;
  refunded: string;
  fees: string;
  /** What stays with the merchant: `gross` less `refunded` less `fees`. */
  net: string;
  payments_without_fee: number;
}

/** The totals by currency, in the order of the currencies' codes. */
export function summaryOf(totals: Totals): CurrencySummary[] {
  return [...totals.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, sums]) => ({
      currency,
      count: sums.count,
      gross: fromMinorUnits(sums.gross, currency),
      refunded: fromMinorUnits(sums.refunded, currency),
      fees: fromMinorUnits(sums.fees, currency),
      net: fromMinorUnits(sums.gross - sums.refunded - sums.fees, currency),
      payments_without_fee: sums.withoutFee,
    }));
}
