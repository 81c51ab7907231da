import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConcurrentModificationError } from '../../domain/errors.ts';
import { isPaymentId, type Payment } from '../../domain/payment.ts';
import { holdsPersonalData } from '../../domain/personal-data.ts';
import type { Mode } from '../../domain/principal.ts';
import { paymentTokens } from '../../domain/search.ts';
import type { PaymentRepository } from '../../ports/payment-repository.ts';
import { decodedItems } from './item-decoder.ts';
import { paymentFromItem, paymentToItem } from './payment-mapper.ts';
import { pointAtReference } from './payment-references.ts';
import { allItems, allOfSweeperIndex, type DuePayment, duePayments, type TableIndexRef } from './query.ts';
import { tokenChanges, writeSearchKeys } from './search-keys.ts';
import { currentIndexNames, type IndexNames, paymentKeys, personalDataKeys } from './table-schema.ts';

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
    // Before the payment, so that no payment holds personal data that its id alone cannot find, no search key
    // outlives an erasure, and no payment has a PSP reference its payouts cannot find it by.
    const pointed = holdsPersonalData(payment) && !(before && holdsPersonalData(before));
    const changes = tokenChanges(before ? paymentTokens(before) : [], paymentTokens(payment));
    const referenced =
      payment.provider_reference !== null && payment.provider_reference !== before?.provider_reference;
    await Promise.all([
      pointed && this.point(payment),
      writeSearchKeys(this.client, this.tableName, { type: 'payment', ...payment }, changes),
      referenced && pointAtReference(this.client, this.tableName, payment),
    ]);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: paymentToItem(payment),
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
    return Item ? paymentFromItem(Item) : undefined;
  }

  async listOfLink(linkId: string, mode: Mode): Promise<Payment[]> {
    const { pk, skPrefix } = paymentKeys.ofLink(linkId, mode);
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    });
    const payments = decodedItems(items, paymentFromItem);
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
    return decodedItems(items, paymentFromItem);
  }

  dueForCheck(now: Date, limit: number): Promise<DuePayment[]> {
    return duePayments(this.timelines, paymentKeys.checkShard, now, limit);
  }

  /** A pending payment always has a next check, so the sweeper's list holds every one. */
  async pendingOfConnection(connectionId: string): Promise<{ link_id: string; mode: Mode; id: string }[]> {
    const payments = await allOfSweeperIndex(this.timelines, paymentKeys.checkShard, paymentFromItem);
    return payments
      .filter((payment) => payment.connection_id === connectionId && payment.status === 'pending')
      .map(({ id, link_id, mode }) => ({ id, link_id, mode }));
  }
}
