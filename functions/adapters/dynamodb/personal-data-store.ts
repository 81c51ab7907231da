import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '../../domain/payment.ts';
import { type Erasures, scrubbedEventData } from '../../domain/personal-data.ts';
import type { Mode } from '../../domain/principal.ts';
import { referenceTokens } from '../../domain/search.ts';
import type { PersonalDataStore } from '../../ports/personal-data.ts';
import { eventDataOf, storedEventData } from './event-data.ts';
import { paymentFromItem } from './payment-mapper.ts';
import { allItems, type DuePayment, duePayments, type TableIndexRef } from './query.ts';
import { searchableRefund } from './refund-entries.ts';
import { refundEntryFromItem } from './refund-mapper.ts';
import { writeSearchKeys } from './search-keys.ts';
import {
  bookKeys,
  currentIndexNames,
  type IndexNames,
  keys,
  paymentKeys,
  personalDataKeys,
} from './table-schema.ts';
import { setAttributes } from './update-expressions.ts';

/** Rounds of re-reading a link whose version moved while its copy of a buyer's details was erased. */
const LINK_ROUNDS = 3;

/**
 * Personal data's copies in DynamoDB (docs/security.md#personal-data): the pointer from a payment's id to its
 * link, the refund entries, the stored events (each event item and each delivery copies `data`), the link item.
 */
export class DynamoPersonalDataStore implements PersonalDataStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly timelines: TableIndexRef;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.timelines = { client, tableName, indexName: indexes.timelines };
  }

  async findPayment(account: string, mode: Mode, id: string): Promise<Payment | undefined> {
    const pointer = await this.item(personalDataKeys.paymentPointer(id, mode));
    if (!pointer || pointer.account !== account) return undefined;
    const item = await this.item(paymentKeys.payment(String(pointer.link_id), mode, id));
    return item ? paymentFromItem(item) : undefined;
  }

  async eraseCopies(link: Pick<Payment, 'link_id' | 'mode'>, erasures: Erasures): Promise<void> {
    if (erasures.size === 0) return;
    await Promise.all([
      this.eraseRefundEntries(link, erasures),
      this.eraseEvents(link, erasures),
      this.eraseFromLink(link, erasures),
    ]);
  }

  dueForRetention(now: Date, limit: number): Promise<DuePayment[]> {
    return duePayments(this.timelines, paymentKeys.retentionShard, now, limit);
  }

  private async item(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }

  /** A refund entry carries its payment's reference, and is listed under it in gsi2 (a link has at most 100). */
  private async eraseRefundEntries(
    link: Pick<Payment, 'link_id' | 'mode'>,
    erasures: Erasures,
  ): Promise<void> {
    const { pk, skPrefix } = bookKeys.refundsOfLink(link.link_id, link.mode);
    const entries = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: 'attribute_exists(client_reference_id)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ConsistentRead: true,
    });
    await Promise.all(
      entries
        .filter((entry) => erasures.has(String(entry.payment_id)))
        .map(async (item) => {
          // The reference's search keys first, so that none outlives the erasure (docs/security.md#personal-data).
          const entry = refundEntryFromItem(item);
          const removed = referenceTokens(entry.client_reference_id ?? '');
          await writeSearchKeys(this.client, this.tableName, searchableRefund(entry), { removed });
          await this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { pk: item.pk, sk: item.sk },
              UpdateExpression: 'REMOVE client_reference_id, gsi2pk, gsi2sk',
            }),
          );
        }),
    );
  }

  /** Every event of the link, and each of its deliveries, with the erased payments' details scrubbed. */
  private async eraseEvents(of: Pick<Payment, 'link_id' | 'mode'>, erasures: Erasures): Promise<void> {
    const link = await this.item(keys.link(of.link_id, of.mode));
    const eventIds = Array.isArray(link?.event_ids) ? (link.event_ids as string[]) : [];
    const copies = await Promise.all(
      eventIds.map((id) =>
        allItems(this.client, {
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :mode)',
          ExpressionAttributeValues: {
            ':pk': keys.event(id, of.mode).pk,
            ':mode': `MODE#${of.mode}`,
          },
          ConsistentRead: true,
        }),
      ),
    );
    await Promise.all(
      copies.flat().map(async (copy) => {
        const scrubbed = scrubbedEventData(eventDataOf(copy.data), erasures);
        if (scrubbed === undefined) return;
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: copy.pk, sk: copy.sk },
            UpdateExpression: 'SET #data = :data',
            ExpressionAttributeNames: { '#data': 'data' },
            ExpressionAttributeValues: { ':data': storedEventData(scrubbed) },
          }),
        );
      }),
    );
  }

  /**
   * A link keeps its payments' summaries (`payment`, `paid_payments`): whatever of the erased payments' details
   * one holds is scrubbed, in a write conditioned on the version read, read again when it moved.
   */
  private async eraseFromLink(of: Pick<Payment, 'link_id' | 'mode'>, erasures: Erasures): Promise<void> {
    for (let round = 0; round < LINK_ROUNDS; round++) {
      const link = await this.item(keys.link(of.link_id, of.mode));
      if (!link) return;
      const fields = ['payment', 'paid_payments'].filter((field) => link[field] !== undefined);
      const scrubbed = fields.flatMap((field) => {
        const clean = scrubbedEventData({ [field]: link[field] }, erasures) as
          | Record<string, unknown>
          | undefined;
        return clean ? [[field, clean[field]] as const] : [];
      });
      if (!scrubbed.length) return;
      const set = setAttributes(Object.fromEntries(scrubbed));
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.link(of.link_id, of.mode),
            ...set,
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':version': link.version },
          }),
        );
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new Error(`Payment link ${of.link_id} kept changing while a buyer's details were erased.`);
  }
}
