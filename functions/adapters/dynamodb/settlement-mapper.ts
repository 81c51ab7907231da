import {
  PAYOUT_ITEM_KINDS,
  PAYOUT_STATUSES,
  type Settlement,
  type SettlementItem,
  settlementSortTime,
} from '../../domain/settlement.ts';
import type { PayoutReading, ReferencedPayment } from '../../ports/settlements.ts';
import { storedProvider } from './connection-mapper.ts';
import {
  amount,
  boolean,
  itemDecoder,
  literal,
  mode,
  nullable,
  number,
  oneOf,
  string,
} from './item-decoder.ts';
import { settlementKeys } from './settlement-keys.ts';
import { shardOf } from './table-schema.ts';

/** A settlement (docs/data-model.md#settlements), stored since 2026-11-29. */
export const settlementFromItem = /* @__PURE__ */ itemDecoder<Settlement>('settlement', () => ({
  id: string,
  object: literal('settlement'),
  account: string,
  mode,
  connection_id: string,
  provider: storedProvider,
  psp_reference: string,
  amount,
  arrival_date: nullable(string),
  status: oneOf(PAYOUT_STATUSES),
  matched_count: number,
  unmatched_count: number,
  psp_created_at: string,
  created_at: string,
  updated_at: string,
}));

/** One line of a settlement, beside it; `kind = settlement_item` tells it from the settlement in one Query. */
export const settlementItemFromItem = /* @__PURE__ */ itemDecoder<SettlementItem>(
  'settlement item',
  () => ({
    kind: oneOf(PAYOUT_ITEM_KINDS),
    psp_reference: string,
    payment_reference: nullable(string),
    amount,
    fee: nullable(amount),
    net: amount,
    matched: boolean,
    link_id: nullable(string),
    payment_id: nullable(string),
    refund_id: nullable(string),
  }),
  { omit: ['record'] },
);

/** The pointer from a payment's PSP reference to the payment. */
export const referencedPaymentFromItem = /* @__PURE__ */ itemDecoder<ReferencedPayment>(
  'payment reference',
  () => ({ link_id: string, mode, payment_id: string }),
  { keep: 'drop' },
);

export const payoutReadingFromItem = /* @__PURE__ */ itemDecoder<PayoutReading>(
  'payout reading',
  () => ({
    connection_id: string,
    account: string,
    mode,
    read_from: string,
    next_read_at: string,
  }),
  { omit: ['id'] },
);

export function settlementToItem(settlement: Settlement) {
  return {
    ...settlementKeys.settlement(settlement.id, settlement.mode),
    gsi1pk: settlementKeys.listing(settlement.account, settlement.mode),
    gsi1sk: `${settlementSortTime(settlement)}#${settlement.id}`,
    ...settlement,
  };
}

export function settlementItemToItem(settlement: Settlement, item: SettlementItem, index: number) {
  return {
    ...settlementKeys.item(settlement.id, settlement.mode, index),
    record: 'settlement_item',
    ...item,
  };
}

export function payoutReadingToItem(reading: PayoutReading) {
  return {
    ...settlementKeys.reading(reading.connection_id),
    // The timelines index projects `id` and `mode`: what the sweeper reads of its list.
    id: reading.connection_id,
    gsi3pk: settlementKeys.readingShard(shardOf(reading.connection_id)),
    gsi3sk: `${reading.next_read_at}#${reading.connection_id}`,
    ...reading,
  };
}
