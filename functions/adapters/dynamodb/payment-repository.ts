import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConcurrentModificationError } from '../../domain/errors.ts';
import { isPaymentId, type Payment } from '../../domain/payment.ts';
import { firstRetentionCheck, holdsPersonalData } from '../../domain/personal-data.ts';
import type { Mode } from '../../domain/principal.ts';
import type { PaymentRepository } from '../../ports/payment-repository.ts';
import { allItems, allOfSweeperIndex, type DuePayment, duePayments, type TableIndexRef } from './query.ts';
import { fromStoredRouting, type StoredRouting, toStoredRouting } from './routing-item.ts';
import {
  bookEntryKeys,
  bookKeys,
  currentIndexNames,
  type IndexNames,
  paymentKeys,
  personalDataKeys,
  shardOf,
  withoutKeys,
} from './table-schema.ts';

/** A stored payment as the domain reads it: its routing decision expanded (`fromStoredRouting`). */
export function toPayment(item: Record<string, unknown>): Payment {
  const { routing, ...rest } = withoutKeys<Omit<Payment, 'routing'> & { routing?: StoredRouting }>(item);
  return routing ? { ...rest, routing: fromStoredRouting(routing, rest.connection_id) } : rest;
}

/**
 * The payment's place in gsi3, sparse: while pending, the check sweeper's list by its next check; once settled
 * and holding personal data, the retention sweep's list by its next retention check; otherwise none.
 */
function timelineKeys(payment: Payment) {
  if (payment.next_check_at) {
    return {
      gsi3pk: paymentKeys.checkShard(shardOf(payment.id)),
      gsi3sk: `${payment.next_check_at}#${payment.id}`,
    };
  }
  if (payment.status === 'pending' || !holdsPersonalData(payment)) return {};
  const checkAt = payment.retention_check_at ?? firstRetentionCheck(payment);
  return { gsi3pk: paymentKeys.retentionShard(shardOf(payment.id)), gsi3sk: `${checkAt}#${payment.id}` };
}

function paymentItem({ routing, ...payment }: Payment) {
  return {
    ...paymentKeys.payment(payment.link_id, payment.mode, payment.id),
    // The account's books: keys only, which never change, so only the payment's first write writes them.
    ...bookEntryKeys(
      bookKeys.payments(payment.account, payment.mode),
      (reference) => bookKeys.paymentsByReference(payment.account, payment.mode, reference),
      payment,
    ),
    ...timelineKeys(payment),
    ...payment,
    ...(routing ? { routing: toStoredRouting(routing) } : {}),
  };
}

export class DynamoPaymentRepository implements PaymentRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  /** The sweeper's work list, in the timelines index (or its predecessor while it fills). */
  private readonly timelines: TableIndexRef;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.timelines = { client, tableName, indexName: indexes.timelines };
  }

  async save(payment: Payment, before?: Payment): Promise<void> {
    // Before the payment, so that no payment holds personal data that its id alone cannot find.
    if (holdsPersonalData(payment) && !(before && holdsPersonalData(before))) await this.point(payment);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: paymentItem(payment),
          ...(before
            ? {
                ConditionExpression: 'version = :expected',
                ExpressionAttributeValues: { ':expected': before.version },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConcurrentModificationError(`Payment ${payment.id} changed while it was being saved.`);
      }
      throw error;
    }
  }

  /** The pointer from the payment's id to its link (`personalDataKeys.paymentPointer`); rewriting it is harmless. */
  private async point(payment: Payment): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...personalDataKeys.paymentPointer(payment.id, payment.mode),
          link_id: payment.link_id,
          account: payment.account,
        },
      }),
    );
  }

  async get(linkId: string, mode: Mode, id: string): Promise<Payment | undefined> {
    if (!isPaymentId(id)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: paymentKeys.payment(linkId, mode, id),
        ConsistentRead: true,
      }),
    );
    return Item ? toPayment(Item) : undefined;
  }

  async listOfLink(linkId: string, mode: Mode): Promise<Payment[]> {
    const { pk, skPrefix } = paymentKeys.ofLink(linkId, mode);
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    });
    const payments = items.map(toPayment);
    return payments.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  async listOfLinkSince(linkId: string, mode: Mode, since: Date): Promise<Payment[]> {
    const { pk, from, to } = paymentKeys.since(linkId, mode, since);
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return items.map(toPayment);
  }

  dueForCheck(now: Date, limit: number): Promise<DuePayment[]> {
    return duePayments(this.timelines, paymentKeys.checkShard, now, limit);
  }

  /** A pending payment always has a next check, so the sweeper's list holds every one. */
  async pendingOfConnection(connectionId: string): Promise<{ link_id: string; mode: Mode; id: string }[]> {
    const payments = await allOfSweeperIndex<Payment>(this.timelines, paymentKeys.checkShard);
    return payments
      .filter((payment) => payment.connection_id === connectionId && payment.status === 'pending')
      .map(({ id, link_id, mode }) => ({ id, link_id, mode }));
  }
}
