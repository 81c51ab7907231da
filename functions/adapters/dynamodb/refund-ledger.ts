import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Transition } from '../../domain/link-events.ts';
import { paidPayment, withDuplicate } from '../../domain/link-payments.ts';
import type { PaidPayment, PaymentLink, Refund, RefundStatus } from '../../domain/payment-link.ts';
import type { Mode } from '../../domain/principal.ts';
import { perPaymentTotals, totalsEntry } from '../../domain/refund.ts';
import type { RefundLedger } from '../../ports/refund-ledger.ts';
import { linkFromItem, linkSweeperKeys } from './link-mapper.ts';
import { dropOrphan, putEvent } from './link-repository.ts';
import { copyRefundedTotal, type RefundedTotal } from './payment-refunds.ts';
import { allOfSweeperIndex, dueInSweeperIndex, type TableIndexRef } from './query.ts';
import { writeRefundEntry } from './refund-entries.ts';
import { currentIndexNames, type IndexNames, keys } from './table-schema.ts';

/**
 * The refunded payment's total as a settlement's write left it (`ReturnValues: UPDATED_NEW` of that write), or
 * undefined should the answer lack it (then the next settlement or the backfill copies it).
 */
function paymentTotalIn(
  link: PaymentLink,
  refund: Refund,
  updated: Record<string, unknown> | undefined,
): RefundedTotal | undefined {
  const kept = perPaymentTotals(link, refund.payment_id);
  const perPayment = kept
    ? (updated?.[kept] as Record<string, { refund_refunded_minor?: unknown }> | undefined)
    : undefined;
  const refunded = kept
    ? perPayment?.[refund.payment_id]?.refund_refunded_minor
    : updated?.refund_refunded_minor;
  const total = {
    paymentId: refund.payment_id,
    refundedMinor: Number(refunded),
    linkVersion: Number(updated?.version),
  };
  return Number.isSafeInteger(total.refundedMinor) && Number.isSafeInteger(total.linkVersion)
    ? total
    : undefined;
}

/** How many refunds of a link may be reserved between its read and a reservation's write before that write retries. */
const RESERVED_SINCE_READ = 16;

/**
 * The condition that no refund with the id `:id` was appended since `link` was read (whose refunds the caller
 * looked through: `createRefund`), so that two requests for the same refund id at once (a form sent twice) reserve
 * it once. Refunds are only ever appended: those since the read are at its length and after; past
 * `RESERVED_SINCE_READ` of them the condition fails, and the caller reads the link again.
 */
function notReservedSince(link: PaymentLink): string {
  const read = link.refunds.length;
  const since = Array.from({ length: RESERVED_SINCE_READ }, (_, offset) => {
    const entry = `refunds[${read + offset}]`;
    return `(attribute_not_exists(${entry}) OR ${entry}.id <> :id)`;
  });
  return `(attribute_not_exists(refunds) OR size(refunds) <= :sinceBound) AND ${since.join(' AND ')}`;
}

type ReservationLimits = { paidMinor: bigint; refundMinor: bigint; duplicate?: PaidPayment | undefined };

/** The part of a reservation's write that bounds the refund by what remains of its payment. */
interface ReservationBound {
  condition: string;
  /** Appended to the write's `SET`. */
  set: string;
  /** The write's `ADD` of the link's own total, or nothing. */
  add: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * Where a refund's reservation is bounded. Arithmetic cannot appear in a condition, so "reserved + this refund <=
 * paid" is "reserved <= paid - this". A single-use link's own payment counts on the link (paid, one payment); a
 * reusable link's on the payment's own entry, which exists only once the payment succeeded (and the link's total
 * moves too, for `amount_refunded`); a single-use link's duplicate payment on its own entry alone, which its first
 * refund records (`reservationOfDuplicate`).
 */
function reservationBound(link: PaymentLink, refund: Refund, limits: ReservationLimits): ReservationBound {
  const amount = Number(limits.refundMinor);
  const limit = Number(limits.paidMinor - limits.refundMinor);
  const addToLink = ' ADD refund_reserved_minor :amount';
  const entry = '#paid.#payment.refund_reserved_minor';
  const kept = perPaymentTotals(link, refund.payment_id);
  if (limits.duplicate) return reservationOfDuplicate(link, limits.duplicate, amount);
  if (!kept) {
    return {
      condition:
        '#status = :paid AND (attribute_not_exists(refund_reserved_minor) OR refund_reserved_minor <= :limit)',
      set: '',
      add: addToLink,
      names: { '#status': 'status' },
      values: { ':paid': 'paid', ':amount': amount, ':limit': limit },
    };
  }
  return {
    condition: `${entry} <= :limit`,
    set: `, ${entry} = ${entry} + :amount`,
    add: kept === 'paid_payments' ? addToLink : '',
    names: { '#paid': kept, '#payment': refund.payment_id },
    values: { ':amount': amount, ':limit': limit },
  };
}

/**
 * A single-use link's duplicate payment recorded with its first refund's amount reserved on it, on condition that
 * no other write recorded it since the link was read (a concurrent first refund: this one then reads the link
 * again, and is bounded by the entry that one wrote). The link's totals, its own payment's bound, stay.
 */
function reservationOfDuplicate(link: PaymentLink, duplicate: PaidPayment, amount: number): ReservationBound {
  const entry: PaidPayment = { ...duplicate, refund_reserved_minor: amount, refund_refunded_minor: 0 };
  // A map's entry can be set only once the map exists: the link's first recorded duplicate writes the map.
  if (Object.keys(link.duplicate_payments).length === 0) {
    return {
      condition: 'attribute_not_exists(#duplicates)',
      set: ', #duplicates = :duplicates',
      add: '',
      names: { '#duplicates': 'duplicate_payments' },
      values: { ':duplicates': { [entry.id]: entry } },
    };
  }
  return {
    condition: 'attribute_not_exists(#duplicates.#payment)',
    set: ', #duplicates.#payment = :duplicate',
    add: '',
    names: { '#duplicates': 'duplicate_payments', '#payment': entry.id },
    values: { ':duplicate': entry },
  };
}

/**
 * Refunds inside their link's item: partial updates of the `refunds` list and the minor-unit totals, apart from
 * the link repository so that only the functions that refund carry them.
 */
export class DynamoRefundLedger implements RefundLedger {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  /** The sweeper's work list, in the timelines index (or its predecessor while it fills). */
  private readonly timelines: TableIndexRef;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.timelines = { client, tableName, indexName: indexes.timelines };
  }

  async commitSettlement(
    { before, after, event }: Transition,
    refund: Refund,
    from: RefundStatus,
  ): Promise<boolean> {
    const index = before.refunds.findIndex((candidate) => candidate.id === refund.id);
    const refunded = after.refund_refunded_minor - before.refund_refunded_minor;
    const reserved = after.refund_reserved_minor - before.refund_reserved_minor;
    // A payment with totals of its own (`perPaymentTotals`) has them moved by the same write as `settleRefund`
    // moved them: a reusable link's as the link's, a single-use link's duplicate payment's alone.
    const kept = perPaymentTotals(before, refund.payment_id);
    const entryBefore = totalsEntry(before, refund.payment_id);
    const entryAfter = totalsEntry(after, refund.payment_id);
    const perPayment = kept
      ? ', #paid.#payment.refund_refunded_minor = #paid.#payment.refund_refunded_minor + :paymentRefunded, ' +
        '#paid.#payment.refund_reserved_minor = #paid.#payment.refund_reserved_minor + :paymentReserved'
      : '';
    const paymentDeltas = {
      ':paymentRefunded':
        (entryAfter?.refund_refunded_minor ?? 0) - (entryBefore?.refund_refunded_minor ?? 0),
      ':paymentReserved':
        (entryAfter?.refund_reserved_minor ?? 0) - (entryBefore?.refund_reserved_minor ?? 0),
    };
    await putEvent(this.client, this.tableName, event);
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(before.id, before.mode),
          UpdateExpression:
            `SET refunds[${index}] = :refund, event_ids = list_append(event_ids, :event), version = version + :one${perPayment} ` +
            'ADD refund_refunded_minor :refunded, refund_reserved_minor :reserved',
          ConditionExpression: `refunds[${index}].id = :id AND refunds[${index}].#status = :from`,
          ExpressionAttributeNames: {
            '#status': 'status',
            ...(kept ? { '#paid': kept, '#payment': refund.payment_id } : {}),
          },
          ExpressionAttributeValues: {
            ...(kept ? paymentDeltas : {}),
            ':refund': refund,
            ':event': [event.id],
            ':one': 1,
            ':refunded': refunded,
            ':reserved': reserved,
            ':id': refund.id,
            ':from': from,
          },
          // The totals and version this write left, whatever other refunds of the link moved meanwhile.
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const total = paymentTotalIn(before, refund, Attributes);
      await Promise.all([
        writeRefundEntry(this.client, this.tableName, after, refund, false),
        total && copyRefundedTotal(this.client, this.tableName, before, total),
      ]);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        await dropOrphan(this.client, this.tableName, event);
        return false;
      }
      throw error;
    }
  }

  async recordReference(link: PaymentLink, refund: Refund): Promise<boolean> {
    const index = link.refunds.findIndex((candidate) => candidate.id === refund.id);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression: `SET refunds[${index}] = :refund, version = version + :one`,
          ConditionExpression: `refunds[${index}].id = :id AND refunds[${index}].#status = :pending`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':refund': refund,
            ':one': 1,
            ':id': refund.id,
            ':pending': 'pending',
          },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
    await writeRefundEntry(this.client, this.tableName, link, refund, false);
    return true;
  }

  async reserve(
    link: PaymentLink,
    refund: Refund,
    limits: ReservationLimits & { maxRefunds: number; checkAt: string },
  ): Promise<boolean> {
    // The link goes on the refund sweeper's list, unless it is open and its expiry comes first (`linkSweeperKeys`).
    const entry = linkSweeperKeys({ ...link, refund_check_at: limits.checkAt });
    const bound = reservationBound(link, refund, limits);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression:
            'SET refunds = list_append(if_not_exists(refunds, :none), :refund), version = version + :one, ' +
            `refund_check_at = :checkAt, refund_checks = :zero, gsi3pk = :sweeperShard, gsi3sk = :sweeperKey${bound.set}` +
            bound.add,
          ConditionExpression: `${bound.condition} AND (attribute_not_exists(refunds) OR size(refunds) < :max) AND ${notReservedSince(link)}`,
          ExpressionAttributeNames: bound.names,
          ExpressionAttributeValues: {
            ...bound.values,
            ':none': [],
            ':refund': [refund],
            ':one': 1,
            ':max': limits.maxRefunds,
            ':id': refund.id,
            ':sinceBound': link.refunds.length + RESERVED_SINCE_READ,
            ':checkAt': limits.checkAt,
            ':zero': 0,
            ':sweeperShard': entry.gsi3pk,
            ':sweeperKey': entry.gsi3sk,
          },
        }),
      );
      const recorded = limits.duplicate ? withDuplicate(link, limits.duplicate) : link;
      await writeRefundEntry(this.client, this.tableName, recorded, refund, true);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async dueForCheck(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]> {
    const items = await dueInSweeperIndex(this.timelines, keys.refundCheckShard, now, limit, ['id', 'mode']);
    return items.map((item) => ({ id: String(item.id), mode: item.mode as Mode }));
  }

  /** A link with a pending refund stays on the refund sweeper's list until none is pending. */
  async pendingOfConnection(connectionId: string): Promise<{ link_id: string; id: string }[]> {
    const links = await allOfSweeperIndex(this.timelines, keys.refundCheckShard, linkFromItem);
    // A link's refunds may each go through another connection (a reusable link's payments, a duplicate payment).
    return links.flatMap((link) =>
      link.refunds
        .filter((refund) => refund.status === 'pending')
        .filter((refund) => paidPayment(link, refund.payment_id)?.connection_id === connectionId)
        .map((refund) => ({ link_id: link.id, id: refund.id })),
    );
  }
}
