import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type RefundEntry, refundEntryOf } from '../../domain/books.ts';
import { paidPayment } from '../../domain/link-payments.ts';
import type { PaymentLink, Refund } from '../../domain/payment-link.ts';
import { refundTokens } from '../../domain/search.ts';
import { type Searchable, writeSearchKeys } from './search-keys.ts';
import { bookEntryKeys, bookKeys, paymentKeys } from './table-schema.ts';
import { setAttributes } from './update-expressions.ts';

/**
 * Writes a refund's entry in the books (docs/data-model.md#books) after its link's write landed: every field of
 * the refund as it now stands, on condition that the entry holds no later state (a reservation's write arriving
 * after the settlement's changes nothing). The payment's `client_reference_id` is read once, when the entry is
 * first written; later writes keep it (and an erasure's removal of it).
 */
export async function writeRefundEntry(
  client: DynamoDBDocumentClient,
  tableName: string,
  link: PaymentLink,
  refund: Refund,
  first: boolean,
): Promise<void> {
  const payment = paidPayment(link, refund.payment_id);
  if (!payment) return;
  const reference = first ? await referenceOf(client, tableName, link, refund.payment_id) : undefined;
  const entry = refundEntryOf(link, payment, refund, reference);
  // Its tokens never change but by an erasure of its reference (which removes that key): written with the first.
  if (first)
    await writeSearchKeys(client, tableName, searchableRefund(entry), { added: refundTokens(entry) });
  const attributes: Record<string, unknown> = {
    ...entry,
    ...bookEntryKeys(
      bookKeys.refunds(link.account, link.mode),
      (value) => bookKeys.refundsByReference(link.account, link.mode, value),
      entry,
    ),
  };
  const set = setAttributes(attributes);
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: bookKeys.refundEntry(link.id, link.mode, refund.id),
        ...set,
        ConditionExpression: 'attribute_not_exists(updated_at) OR updated_at <= :updated',
        ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':updated': refund.updated_at },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** What a refund's search keys name (docs/data-model.md#search). */
export const searchableRefund = (entry: RefundEntry): Searchable => ({
  type: 'refund',
  link_id: entry.payment_link_id,
  ...entry,
});

async function referenceOf(
  client: DynamoDBDocumentClient,
  tableName: string,
  link: PaymentLink,
  paymentId: string,
): Promise<string | undefined> {
  const { Item } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: paymentKeys.payment(link.id, link.mode, paymentId),
      ProjectionExpression: 'client_reference_id',
    }),
  );
  return typeof Item?.client_reference_id === 'string' ? Item.client_reference_id : undefined;
}
