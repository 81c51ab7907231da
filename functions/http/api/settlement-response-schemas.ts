import { z } from 'zod';
import { MAX_AMOUNT_VALUE_LENGTH } from '../../domain/money.ts';
import { MODES } from '../../domain/principal.ts';
import { PAYOUT_ITEM_KINDS, PAYOUT_STATUSES } from '../../domain/settlement.ts';
import { int32 } from './int32-schema.ts';
import { money } from './money-response-schemas.ts';
import { pageOf, providerSchema, publicId, timestamp } from './response-schemas.ts';

// Response schemas of settlements (docs/api.md#settlements); only their types reach a handler.

/** A PSP's own id, as long as its API makes one. */
const pspReference = (description: string) => z.string().max(255).meta({ description });
/** As many lines as one settlement may answer (a bound of the document, not of the PSPs). */
const MAX_SETTLEMENT_ITEMS = 100_000;

const settlementFields = {
  id: publicId('stl'),
  object: z.literal('settlement'),
  mode: z.enum(MODES),
  connection_id: publicId('pc').meta({ description: 'The PSP connection whose money it pays out.' }),
  provider: providerSchema(),
  psp_reference: pspReference("The PSP's id of the payout (`po_…`, `stl_…`)."),
  amount: money('What it credits the bank account: payments less fees and refunds.', '1187.35'),
  arrival_date: z.iso.date().max(10).nullable().meta({
    description: 'The day it arrives or arrived (UTC); null while the PSP has not said (an open settlement).',
  }),
  status: z.enum(PAYOUT_STATUSES).meta({
    description:
      'At its PSP: on its way (`pending`, `in_transit`), arrived (`paid`), or not (`failed`, `canceled`).',
  }),
  matched_count: int32(0).meta({ description: 'Lines matched to payments and refunds of ours.' }),
  unmatched_count: int32(0).meta({
    description:
      'Lines we cannot match: money the PSP moved outside this service, its own fees, adjustments.',
  }),
  psp_created_at: timestamp('When its PSP made it.'),
  created_at: timestamp('When it was first read.'),
  updated_at: timestamp('When it was last read with a change.'),
};

export const SettlementSchema = z
  .strictObject(settlementFields)
  .meta({ id: 'Settlement', title: "A PSP's payout, matched to the books" });

export const SettlementListSchema = pageOf(SettlementSchema, {
  id: 'SettlementList',
  title: 'A page of settlements',
});

const signedMoney = (description: string, example: string) =>
  z.strictObject({
    value: z
      .string()
      .max(MAX_AMOUNT_VALUE_LENGTH + 1)
      .meta({ description, example }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .max(3)
      .meta({ example: 'EUR' }),
  });

export const SettlementItemSchema = z
  .strictObject({
    kind: z.enum(PAYOUT_ITEM_KINDS).meta({
      description: "A payment's money in, a refund's out, or another line (the PSP's fees, adjustments).",
    }),
    psp_reference: pspReference(
      "The PSP's id of the line (a balance transaction `txn_…`, or the payment's or refund's own id).",
    ),
    payment_reference: pspReference("The PSP's id of the payment it belongs to (`pi_…`, `tr_…`).").nullable(),
    amount: signedMoney('Its gross amount, negative for money out (a refund).', '49.90'),
    fee: signedMoney('What the PSP kept of it.', '0.99')
      .nullable()
      .meta({ description: 'Null: none reported.' }),
    net: signedMoney('What it adds to the payout.', '48.91'),
    matched: z.boolean().meta({ description: 'Whether it is a payment or refund of ours.' }),
    link_id: publicId('pl').nullable(),
    payment_id: publicId('pay').nullable(),
    refund_id: publicId('re').nullable(),
  })
  .meta({ id: 'SettlementItem', title: 'A line of a settlement' });

export const SettlementWithItemsSchema = z
  .strictObject({
    ...settlementFields,
    items: z
      .array(SettlementItemSchema)
      .max(MAX_SETTLEMENT_ITEMS)
      .meta({ description: 'Every line, in the PSP order.' }),
  })
  .meta({ id: 'SettlementWithItems', title: 'A settlement with its lines' });
