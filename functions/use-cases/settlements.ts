import { createHash } from 'node:crypto';
import type { PspConnection } from '../domain/connection.ts';
import { ConcurrentModificationError } from '../domain/errors.ts';
import { idFromBytes } from '../domain/ids.ts';
import type { Payment } from '../domain/payment.ts';
import {
  type ItemMatch,
  matchedItems,
  type PayoutStatus,
  reportedFeeOf,
  type Settlement,
  type SettlementItem,
} from '../domain/settlement.ts';
import { logger } from '../logger.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { Psp } from '../ports/psp.ts';
import {
  canListPayouts,
  type ListsPayouts,
  type PspPayout,
  type PspPayoutItem,
} from '../ports/psp-capabilities.ts';
import type { PayoutReading, SettlementRepository } from '../ports/settlements.ts';

/**
 * The settlement sweeper (docs/api.md#settlements): reads each connection's payouts at its PSP when due, matches
 * every line to our payments and refunds by the PSP's references, records the fee a PSP reports there on a payment
 * that has none of the PSP's yet, and stores each payout as a settlement. Reading a payout again stores the same
 * settlement (its id comes from the connection and the PSP's id of the payout), and a payout already stored in a
 * final state is not read again.
 */

/** How often a connection's payouts are read: the longest a payout waits to be listed after its PSP lists it. */
export const PAYOUT_READ_INTERVAL_MS = 60 * 60_000;
/** Payouts stored per connection and run, oldest first; the next run reads on from where this one stopped. */
export const PAYOUTS_PER_READ = 20;
/** A connection whose PSP lists no payouts is looked at again this much later (its PSP may gain the capability). */
const NOT_LISTED_AGAIN_MS = 30 * 24 * 3_600_000;

const FINAL: readonly PayoutStatus[] = ['paid', 'failed', 'canceled'];
/** Payout lines matched in parallel. */
const LINES_AT_ONCE = 10;

export interface SettlementDependencies {
  settlements: SettlementRepository;
  payments: PaymentRepository;
  links: Pick<LinkRepository, 'get'>;
  psps: {
    connection(id: string): Promise<PspConnection | undefined>;
    adapter(connection: PspConnection): Promise<Psp>;
  };
  now: () => Date;
}

/** The settlement id of a connection's payout: the same payout always names the same settlement. */
export function settlementId(connectionId: string, payoutReference: string): string {
  return idFromBytes('stl', createHash('sha256').update(`${connectionId}\n${payoutReference}`).digest());
}

/**
 * Up to `limit` due readings, each read in turn while `hasTimeLeft`. A connection whose PSP fails is logged and read
 * again a read interval later, not at every run.
 */
export async function sweepSettlements(
  deps: SettlementDependencies,
  limit: number,
  hasTimeLeft: () => boolean = () => true,
): Promise<{ connections: number; stored: number; failed: string[] }> {
  const readings = await deps.settlements.dueReadings(deps.now(), limit);
  let stored = 0;
  let connections = 0;
  const failed: string[] = [];
  for (const reading of readings) {
    if (!hasTimeLeft()) break;
    try {
      stored += await readPayouts(deps, reading, hasTimeLeft);
      connections++;
    } catch (error) {
      // Nothing of this read was half-stored (a settlement is written after its lines): read again later.
      logger.warn('payouts of a connection could not be read', {
        connection_id: reading.connection_id,
        error,
      });
      failed.push(reading.connection_id);
      const later = new Date(deps.now().getTime() + PAYOUT_READ_INTERVAL_MS).toISOString();
      await deps.settlements.saveReading({ ...reading, next_read_at: later });
    }
  }
  return { connections, stored, failed };
}

async function readPayouts(
  deps: SettlementDependencies,
  reading: PayoutReading,
  hasTimeLeft: () => boolean,
): Promise<number> {
  const now = deps.now();
  const connection = await deps.psps.connection(reading.connection_id);
  const psp = connection && (await deps.psps.adapter(connection));
  if (!connection || !psp || !canListPayouts(psp)) {
    const later = new Date(now.getTime() + NOT_LISTED_AGAIN_MS).toISOString();
    await deps.settlements.saveReading({ ...reading, next_read_at: later });
    return 0;
  }
  const oldestFirst = (await psp.listPayouts(new Date(reading.read_from))).sort((a, b) =>
    a.createdAt.localeCompare(b.createdAt),
  );
  let stored = 0;
  // The oldest payout not done: not read this time (a bound was reached), or not final yet.
  let notDone: PspPayout | undefined;
  for (const payout of oldestFirst) {
    if (stored === PAYOUTS_PER_READ || !hasTimeLeft()) {
      notDone ??= payout;
      break;
    }
    if (await storePayout(deps, connection, psp, payout)) stored++;
    if (!FINAL.includes(payout.status)) notDone ??= payout;
  }
  const readFrom = (notDone ?? oldestFirst.at(-1))?.createdAt ?? reading.read_from;
  await deps.settlements.saveReading({
    ...reading,
    read_from: readFrom > reading.read_from ? readFrom : reading.read_from,
    next_read_at: new Date(now.getTime() + PAYOUT_READ_INTERVAL_MS).toISOString(),
  });
  return stored;
}

/** Stores one payout as a settlement, unless it is stored already in the same final state: true when written. */
async function storePayout(
  deps: SettlementDependencies,
  connection: PspConnection,
  psp: ListsPayouts,
  payout: PspPayout,
): Promise<boolean> {
  const id = settlementId(connection.id, payout.reference);
  const existing = await deps.settlements.stored(id, connection.mode);
  const same = existing?.status === payout.status && existing.amount.value === payout.amount.value;
  if (existing && same && FINAL.includes(payout.status)) return false;
  const lines = await psp.payoutItems(payout);
  const matches = new Map<string, ItemMatch>();
  // A few lines at a time: each is a few reads by key (and a payment's fee, a conditional write).
  for (let start = 0; start < lines.length; start += LINES_AT_ONCE) {
    const chunk = lines.slice(start, start + LINES_AT_ONCE);
    const found = await Promise.all(chunk.map((line) => matchLine(deps, connection, line)));
    found.forEach((match, index) => {
      if (match) matches.set((chunk[index] as PspPayoutItem).reference, match);
    });
  }
  const items = matchedItems(lines.map(itemOf), matches);
  const now = deps.now().toISOString();
  const settlement: Settlement = {
    id,
    object: 'settlement',
    account: connection.account,
    mode: connection.mode,
    connection_id: connection.id,
    provider: connection.provider,
    psp_reference: payout.reference,
    amount: payout.amount,
    arrival_date: payout.arrivalDate,
    status: payout.status,
    matched_count: items.filter((item) => item.matched).length,
    unmatched_count: items.filter((item) => !item.matched).length,
    psp_created_at: payout.createdAt,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await deps.settlements.save(settlement, items);
  return true;
}

const itemOf = (
  line: PspPayoutItem,
): Omit<SettlementItem, 'matched' | 'link_id' | 'payment_id' | 'refund_id'> => ({
  kind: line.kind,
  psp_reference: line.reference,
  payment_reference: line.paymentReference,
  amount: line.amount,
  fee: line.fee,
  net: line.net,
});

/**
 * Our payment (and refund) a line names, found by the PSP's payment reference within the connection; a payment
 * line's fee is recorded on the payment when the payment has none of the PSP's yet.
 */
async function matchLine(
  deps: SettlementDependencies,
  connection: PspConnection,
  line: PspPayoutItem,
): Promise<ItemMatch | undefined> {
  if (line.kind === 'other' || !line.paymentReference) return undefined;
  const pointer = await deps.settlements.paymentByReference(connection.id, line.paymentReference);
  if (!pointer) return undefined;
  const payment = await deps.payments.get(pointer.link_id, pointer.mode, pointer.payment_id);
  if (payment?.provider_reference !== line.paymentReference || payment.connection_id !== connection.id) {
    return undefined;
  }
  const found = { link_id: payment.link_id, payment_id: payment.id };
  if (line.kind === 'refund') {
    const link = await deps.links.get(payment.link_id, payment.mode);
    const refund = link?.refunds.find(
      (candidate) =>
        candidate.payment_id === payment.id && candidate.provider_reference === line.refundReference,
    );
    return refund ? { ...found, refund_id: refund.id } : undefined;
  }
  await recordReportedFee(deps, payment, line);
  return { ...found, refund_id: null };
}

/** Tries of a fee's write that lost to a concurrent change of the payment (read again each time). */
const FEE_TRIES = 3;

async function recordReportedFee(
  deps: SettlementDependencies,
  read: Payment,
  line: PspPayoutItem,
): Promise<void> {
  let payment: Payment | undefined = read;
  for (let tries = 0; payment && tries < FEE_TRIES; tries++) {
    const fee = reportedFeeOf(payment.fee, itemOf(line));
    if (!fee) return;
    const updated = { ...payment, fee, version: payment.version + 1, updated_at: deps.now().toISOString() };
    try {
      await deps.payments.save(updated, payment);
      return;
    } catch (error) {
      // Changed meanwhile (a refund's total, a retention check): read it again.
      if (!(error instanceof ConcurrentModificationError)) throw error;
      payment = await deps.payments.get(payment.link_id, payment.mode, payment.id);
    }
  }
}
