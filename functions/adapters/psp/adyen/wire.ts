import type { Amount } from '../../../domain/money.ts';
import { pspMinorUnits } from '../../../domain/psp-rules.ts';
import type { adyen } from './descriptor.ts';

/** What the adapter (adapter.ts) and its mandates (mandates.ts) both send Adyen. */

/** The amount as Adyen takes it, in its minor units of the currency (its descriptor's `amounts`). */
export function adyenAmount(descriptor: typeof adyen, amount: Amount): { currency: string; value: number } {
  return { currency: amount.currency, value: Number(pspMinorUnits(descriptor.amounts, amount)) };
}

/** Adyen keeps an idempotency key for at least 7 days after its first request. */
export const ADYEN_IDEMPOTENCY_WINDOW_MS = 7 * 24 * 3_600_000;
