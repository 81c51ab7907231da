import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PaymentLink, Refund, Transition } from '../../domain/payment-link.ts';
import type { Mode } from '../../domain/principal.ts';
import type { RefundLedger } from '../../ports/refund-ledger.ts';
import { dropOrphan, putEvent } from './link-repository.ts';
import { allOfSweeperIndex, dueInSweeperIndex } from './query.ts';
import { keys, refundCheckKeys } from './table-schema.ts';

/**
 * Refunds inside their link's item: partial updates of the `refunds` list and the minor-unit totals, apart from
 * the link repository so that only the functions that refund carry them.
 */
export class DynamoRefundLedger implements RefundLedger {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async commitSettlement({ before, after, event }: Transition, refund: Refund): Promise<boolean> {
    const index = (before.refunds ?? []).findIndex((candidate) => candidate.id === refund.id);
    await putEvent(this.client, this.tableName, event);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(before.id, before.mode),
          UpdateExpression:
            `SET refunds[${index}] = :refund, event_ids = list_append(event_ids, :event), version = version + :one ` +
            'ADD refund_refunded_minor :refunded, refund_reserved_minor :reserved',
          ConditionExpression: `refunds[${index}].id = :id AND refunds[${index}].#status = :pending`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':refund': refund,
            ':event': [event.id],
            ':one': 1,
            ':refunded': (after.refund_refunded_minor ?? 0) - (before.refund_refunded_minor ?? 0),
            ':reserved': (after.refund_reserved_minor ?? 0) - (before.refund_reserved_minor ?? 0),
            ':id': refund.id,
            ':pending': 'pending',
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        await dropOrphan(this.client, this.tableName, event);
        return false;
      }
      throw error;
    }
  }

  async reserve(
    link: PaymentLink,
    refund: Refund,
    limits: { paidMinor: bigint; refundMinor: bigint; maxRefunds: number; checkAt: string },
  ): Promise<boolean> {
    // Arithmetic cannot appear in a condition, so "reserved + this refund <= paid" is "reserved <= paid - this".
    const check = refundCheckKeys(link.id, limits.checkAt);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.link(link.id, link.mode),
          UpdateExpression:
            'SET refunds = list_append(if_not_exists(refunds, :none), :refund), version = version + :one, ' +
            'refund_check_at = :checkAt, refund_checks = :zero, gsi3pk = :checkShard, gsi3sk = :checkKey ' +
            'ADD refund_reserved_minor :amount',
          ConditionExpression:
            '#status = :paid AND (attribute_not_exists(refund_reserved_minor) OR refund_reserved_minor <= :limit) ' +
            'AND (attribute_not_exists(refunds) OR size(refunds) < :max)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':none': [],
            ':refund': [refund],
            ':one': 1,
            ':amount': Number(limits.refundMinor),
            ':paid': 'paid',
            ':limit': Number(limits.paidMinor - limits.refundMinor),
            ':max': limits.maxRefunds,
            ':checkAt': limits.checkAt,
            ':zero': 0,
            ':checkShard': check.gsi3pk,
            ':checkKey': check.gsi3sk,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async dueForCheck(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]> {
    const items = await dueInSweeperIndex(this.client, this.tableName, keys.refundCheckShard, now, limit, [
      'id',
      'mode',
    ]);
    return items.map((item) => ({ id: String(item.id), mode: item.mode as Mode }));
  }

  /** A link with a pending refund stays on the refund sweeper's list until none is pending. */
  async pendingOfConnection(connectionId: string): Promise<{ link_id: string; id: string }[]> {
    const items = await allOfSweeperIndex(
      this.client,
      this.tableName,
      keys.refundCheckShard,
      {
        expression: '#payment.connection_id = :connection',
        names: { '#payment': 'payment' },
        values: { ':connection': connectionId },
      },
      ['id', 'refunds'],
    );
    return items.flatMap((item) =>
      ((item.refunds ?? []) as Refund[])
        .filter((refund) => refund.status === 'pending')
        .map((refund) => ({ link_id: String(item.id), id: refund.id })),
    );
  }
}
