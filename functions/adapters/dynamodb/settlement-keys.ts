// Beside table-schema.ts, whose key groups it follows (that file is at its size bound).

/**
 * Keys of settlements (docs/data-model.md#settlements): each payout beside its lines in one partition (a read of
 * one is a Query), in its (account, mode)'s listing in gsi1 by the start of its arrival day; a payment's PSP
 * reference points at the payment (`paymentByReference`), so that a payout's lines find ours by key; a
 * connection whose PSP lists payouts holds its reading's progress in the sweeper's list (gsi3 `PAYOUTREAD#<shard>`,
 * by when it is next read).
 */
export const settlementKeys = {
  settlement: (id: string, mode: string) => ({ pk: `SETTLEMENT#${id}`, sk: `MODE#${mode}` }),
  item: (id: string, mode: string, index: number) => ({
    pk: `SETTLEMENT#${id}`,
    sk: `MODE#${mode}#ITEM#${String(index).padStart(6, '0')}`,
  }),
  ofSettlement: (id: string, mode: string) => ({ pk: `SETTLEMENT#${id}`, skPrefix: `MODE#${mode}#ITEM#` }),
  listing: (account: string, mode: string) => `SETTLEMENTS#${account}#${mode}`,
  /** A payment by its PSP's reference, within the connection that took it. */
  paymentByReference: (connectionId: string, reference: string) => ({
    pk: `PSPREF#${connectionId}#${reference}`,
    sk: 'PAYMENT',
  }),
  reading: (connectionId: string) => ({ pk: `PAYOUTS#${connectionId}`, sk: 'READING' }),
  readingShard: (shard: number) => `PAYOUTREAD#${shard}`,
};
