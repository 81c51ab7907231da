import type { Provider } from './connection.ts';
import type { Amount } from './money.ts';
import type { PaymentFee } from './payment-money.ts';
import type { Mode } from './principal.ts';

/**
 * A PSP's payout of the money a connection took (a payout or a settlement, as each PSP names it), with what it contains
 * matched to our payments and refunds (docs/api.md#settlements). Pure.
 */

/** A payout's state at its PSP: on its way (`pending`, `in_transit`), arrived (`paid`), or not (`failed`, `canceled`). */
export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** What one line of a payout is: a payment's money in, a refund's out, or anything else (fees, adjustments). */
export const PAYOUT_ITEM_KINDS = ['payment', 'refund', 'other'] as const;
export type PayoutItemKind = (typeof PAYOUT_ITEM_KINDS)[number];

/** One line of a payout, and what of ours it is (all null: nothing of ours, `matched` false). */
export interface SettlementItem {
  kind: PayoutItemKind;
  /** The PSP's id of the line (a balance transaction, or the payment's or refund's own id). */
  psp_reference: string;
  /** The PSP's id of the payment it belongs to (`pi_…`, `tr_…`); null: none. */
  payment_reference: string | null;
  /** Its gross amount, negative for money out (a refund). */
  amount: Amount;
  fee: Amount | null;
  net: Amount;
  matched: boolean;
  link_id: string | null;
  payment_id: string | null;
  refund_id: string | null;
}

export interface Settlement {
  /** `stl_…`, derived from the connection and the PSP's id of the payout: reading it again names the same one. */
  id: string;
  object: 'settlement';
  account: string;
  mode: Mode;
  connection_id: string;
  provider: Provider;
  /** The PSP's id of the payout. */
  psp_reference: string;
  amount: Amount;
  /** The day it arrives or arrived (`YYYY-MM-DD`); null while its PSP has not said. */
  arrival_date: string | null;
  status: PayoutStatus;
  /** Lines matched to our payments and refunds, and lines that are not. */
  matched_count: number;
  unmatched_count: number;
  /** When its PSP made it. */
  psp_created_at: string;
  created_at: string;
  updated_at: string;
}

/** What a payout line names of ours, found by its PSP references (`SettlementMatches`). */
export interface ItemMatch {
  link_id: string;
  payment_id: string;
  refund_id: string | null;
}

/** The items of a payout, each with its match when one was found (by the line's `psp_reference`). */
export function matchedItems(
  lines: readonly Omit<SettlementItem, 'matched' | 'link_id' | 'payment_id' | 'refund_id'>[],
  matches: ReadonlyMap<string, ItemMatch>,
): SettlementItem[] {
  return lines.map((line) => {
    const match = matches.get(line.psp_reference);
    return {
      ...line,
      matched: match !== undefined,
      link_id: match?.link_id ?? null,
      payment_id: match?.payment_id ?? null,
      refund_id: match?.refund_id ?? null,
    };
  });
}

/**
 * The fee a payout line reports for a payment whose own fee is not the PSP's yet (`fee_source` absent or
 * `configured`): the line's fee and net. Undefined when the payment has the PSP's already (nothing to change:
 * a second read of the payout writes nothing), or the line reports no fee.
 */
export function reportedFeeOf(
  current: PaymentFee | undefined,
  line: Pick<SettlementItem, 'kind' | 'fee' | 'net'>,
): PaymentFee | undefined {
  if (line.kind !== 'payment' || !line.fee || current?.source === 'reported') return undefined;
  return { amount: line.fee, net: line.net, source: 'reported' };
}

/** The instant a settlement sorts by in its listing: the start of its arrival day (UTC), else when its PSP made it. */
export const settlementSortTime = (
  settlement: Pick<Settlement, 'arrival_date' | 'psp_created_at'>,
): string =>
  settlement.arrival_date ? `${settlement.arrival_date}T00:00:00.000Z` : settlement.psp_created_at;
