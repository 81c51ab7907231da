import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { linkFromItem } from './link-mapper.ts';
import { writeRefundEntry } from './refund-entries.ts';
import { bookEntryKeys, bookKeys } from './table-schema.ts';
import { setAttributes } from './update-expressions.ts';

/** What one run of the backfill wrote. */
export interface BackfillCount {
  payments: number;
  refunds: number;
}

/**
 * Puts what was stored before the books existed into them (docs/operations.md#books-backfill): each payment
 * without its listing keys gets them, each refund of a link gets its entry. One pass over the table (a Scan:
 * an operator's one-off step, never a request's), idempotent, safe beside live traffic: a payment's keys are
 * written only while the payment exists and lacks them, a refund entry only when it holds no later state.
 */
export async function backfillBooks(
  client: DynamoDBDocumentClient,
  tableName: string,
  progress: (count: BackfillCount) => void = () => {},
): Promise<BackfillCount> {
  const count: BackfillCount = { payments: 0, refunds: 0 };
  for await (const page of paginateScan({ client }, { TableName: tableName })) {
    for (const item of page.Items ?? []) {
      const written = await backfillItem(client, tableName, item);
      count.payments += written.payments;
      count.refunds += written.refunds;
    }
    progress(count);
  }
  return count;
}

/** What one item of the table needs: a payment its listing keys, a link its refunds' entries. */
async function backfillItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
): Promise<BackfillCount> {
  const sk = String(item.sk);
  if (!String(item.pk).startsWith('LINK#')) return { payments: 0, refunds: 0 };
  if (sk.startsWith('PAYMENT#') && item.gsi1pk === undefined) {
    return { payments: (await listPayment(client, tableName, item)) ? 1 : 0, refunds: 0 };
  }
  if (!sk.startsWith('MODE#') || !Array.isArray(item.refunds)) return { payments: 0, refunds: 0 };
  const link = linkFromItem(item);
  for (const refund of link.refunds) await writeRefundEntry(client, tableName, link, refund, true);
  return { payments: 0, refunds: link.refunds.length };
}

async function listPayment(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
): Promise<boolean> {
  const account = String(item.account);
  const mode = String(item.mode);
  const entry = {
    id: String(item.id),
    created_at: String(item.created_at),
    client_reference_id: typeof item.client_reference_id === 'string' ? item.client_reference_id : undefined,
  };
  const attributes = bookEntryKeys(
    bookKeys.payments(account, mode),
    (reference) => bookKeys.paymentsByReference(account, mode, reference),
    entry,
  );
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: item.pk, sk: item.sk },
        ...setAttributes(attributes),
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
