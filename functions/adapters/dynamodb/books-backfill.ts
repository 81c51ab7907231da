import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FeeLine } from '../../domain/connection.ts';
import type { Amount } from '../../domain/money.ts';
import { paymentAmount } from '../../domain/payment.ts';
import type { PaymentMethod } from '../../domain/payment-methods.ts';
import { configuredFee, onlyMethodOf } from '../../domain/payment-money.ts';
import { linkTokens, paymentTokens } from '../../domain/search.ts';
import { linkFromItem } from './link-mapper.ts';
import { paymentFromItem } from './payment-mapper.ts';
import { backfillReference } from './payment-references.ts';
import { copyRefundedTotal, refundedTotalsOf } from './payment-refunds.ts';
import { writeRefundEntry } from './refund-entries.ts';
import { tokenChanges, writeSearchKeys } from './search-keys.ts';
import { bookEntryKeys, bookKeys, connectionKeys, keys } from './table-schema.ts';
import { setAttributes } from './update-expressions.ts';

/** What one run of the backfill wrote. */
export interface BackfillCount {
  payments: number;
  refunds: number;
  /** Payments given the refund total of their link (`amount_refunded`). */
  refunded: number;
  /** Succeeded payments given the estimate of their connection's fee lines. */
  fees: number;
  /** Payments and links given their search keys (docs/data-model.md#search; refunds get theirs with their entry). */
  searchable: number;
  /** Payments whose PSP reference was pointed at them, for their payouts (docs/data-model.md#settlements). */
  references: number;
}

const NOTHING: BackfillCount = {
  payments: 0,
  refunds: 0,
  refunded: 0,
  fees: 0,
  searchable: 0,
  references: 0,
};

/**
 * Puts what was stored before the books existed into them (docs/operations.md#books-backfill): each payment
 * without its listing keys gets them, each refund of a link gets its entry, each refunded payment its link's
 * refund total for it, each succeeded payment without a fee the estimate of its connection's fee lines; each
 * payment, refund and link its search keys (written again: a put of the same key changes nothing). One pass
 * over the table (a Scan: an operator's one-off step, never a request's), idempotent, safe beside live traffic:
 * a payment's keys are written only while the payment exists and lacks them, a refund entry only when it holds
 * no later state, a refund total only over an older one, a fee only where none is.
 */
export async function backfillBooks(
  client: DynamoDBDocumentClient,
  tableName: string,
  progress: (count: BackfillCount) => void = () => {},
): Promise<BackfillCount> {
  const count: BackfillCount = { ...NOTHING };
  const fees = new FeeLines(client, tableName);
  for await (const page of paginateScan({ client }, { TableName: tableName })) {
    for (const item of page.Items ?? []) {
      const written = await backfillItem(client, tableName, item, fees);
      for (const key of Object.keys(count) as (keyof BackfillCount)[]) count[key] += written[key];
    }
    progress(count);
  }
  return count;
}

/** What one item of the table needs: a payment its listing keys and fee, a link its refunds' entries and totals. */
async function backfillItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
  fees: FeeLines,
): Promise<BackfillCount> {
  const sk = String(item.sk);
  if (!String(item.pk).startsWith('LINK#')) return NOTHING;
  if (sk.startsWith('PAYMENT#')) return backfillPayment(client, tableName, item, fees);
  if (!sk.startsWith('MODE#')) return NOTHING;
  const link = linkFromItem(item);
  const tokens = linkTokens(link);
  await writeSearchKeys(client, tableName, { type: 'link', link_id: link.id, ...link }, { added: tokens });
  const searchable = tokens.length ? 1 : 0;
  if (!link.refunds.length) return { ...NOTHING, searchable };
  for (const refund of link.refunds) await writeRefundEntry(client, tableName, link, refund, true);
  let refunded = 0;
  for (const total of refundedTotalsOf(link)) {
    if (await copyRefundedTotal(client, tableName, link, total)) refunded++;
  }
  return { ...NOTHING, refunds: link.refunds.length, refunded, searchable };
}

/**
 * A payment's search keys, from the Scan's copy of it. An erasure between that read and these writes deleted the keys
 * it knew of before these landed: the payment is read again, and a key of what it no longer holds deleted.
 */
async function indexPayment(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
): Promise<void> {
  const payment = paymentFromItem(item);
  const entity = { type: 'payment' as const, ...payment };
  const written = paymentTokens(payment);
  await writeSearchKeys(client, tableName, entity, { added: written });
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }),
  );
  const held = Item ? paymentTokens(paymentFromItem(Item)) : [];
  await writeSearchKeys(client, tableName, entity, { removed: tokenChanges(held, written).added });
}

/** What a payment needs: its listing keys, its fee, its search keys and its PSP reference's pointer. */
async function backfillPayment(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
  fees: FeeLines,
): Promise<BackfillCount> {
  const listed = item.gsi1pk === undefined && (await listPayment(client, tableName, item));
  const feed = await feePayment(client, tableName, item, fees);
  await indexPayment(client, tableName, item);
  const referenced = await referencePayment(client, tableName, item);
  return {
    ...NOTHING,
    payments: listed ? 1 : 0,
    fees: feed ? 1 : 0,
    searchable: 1,
    references: referenced ? 1 : 0,
  };
}

/** A payment's PSP reference pointed at it, for its payouts (`backfillReference`): true when it has one. */
async function referencePayment(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
): Promise<boolean> {
  const payment = paymentFromItem(item);
  if (payment.provider_reference === null) return false;
  await backfillReference(client, tableName, payment);
  return true;
}

/** The fee lines of each connection and the methods of each link, read once per run. */
class FeeLines {
  private readonly connections = new Map<string, Promise<FeeLine[] | null>>();
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  of(account: string, mode: string, connectionId: string): Promise<FeeLine[] | null> {
    const known = this.connections.get(connectionId);
    if (known) return known;
    const read = this.read(connectionKeys.connection(account, mode, connectionId), ['fees']).then(
      (item) => (item?.fees as FeeLine[] | undefined) ?? null,
    );
    this.connections.set(connectionId, read);
    return read;
  }

  /** What of its link a payment's fee depends on: the methods it allows, and its amount (older payments'). */
  async linkOf(linkId: string, mode: string) {
    const item = await this.read(keys.link(linkId, mode), ['payment_methods', 'amount']);
    return {
      payment_methods: (item?.payment_methods as PaymentMethod[] | undefined) ?? null,
      amount: (item?.amount as Amount | undefined) ?? null,
    };
  }

  private async read(key: { pk: string; sk: string }, attributes: string[]) {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: key,
        ProjectionExpression: attributes.map((_, index) => `#a${index}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
      }),
    );
    return Item;
  }
}

/**
 * A succeeded payment stored before payments kept their fee gets the estimate of its connection's fee lines as
 * they are now (`configured`), as a payment succeeding now would: only while it has none.
 */
async function feePayment(
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
  fees: FeeLines,
): Promise<boolean> {
  const payment = paymentFromItem(item);
  if (payment.status !== 'succeeded' || payment.fee) return false;
  const lines = await fees.of(payment.account, payment.mode, payment.connection_id);
  if (!lines?.length) return false;
  const link = await fees.linkOf(payment.link_id, payment.mode);
  if (!payment.amount && !link.amount) return false;
  const fee = configuredFee(lines, paymentAmount(payment, link), onlyMethodOf(link));
  if (!fee) return false;
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET fee = :fee, version = version + :one',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(fee)',
        ExpressionAttributeValues: { ':fee': fee, ':one': 1 },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
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
