import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '../../domain/payment.ts';
import { settlementKeys } from './settlement-keys.ts';
import { payoutReadingToItem } from './settlement-mapper.ts';
import { shardOf } from './table-schema.ts';

/** Connections whose payout reading this container has seen stored: each is written once per container. */
const readingsStored = new Set<string>();

/**
 * Where a payment's PSP reference points (`settlementKeys.paymentByReference`), so that a payout's lines find
 * the payment by key (docs/data-model.md#settlements); rewriting it is harmless. The first payment of a
 * connection a container sees also puts the connection on the settlement sweeper's list, from that payment's
 * time on, unless it is there already (a conditional write: the reading's progress is never reset).
 */
export async function pointAtReference(
  client: DynamoDBDocumentClient,
  tableName: string,
  payment: Payment,
): Promise<void> {
  await writePointer(client, tableName, payment);
  if (readingsStored.has(payment.connection_id)) return;
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: payoutReadingToItem({
          connection_id: payment.connection_id,
          account: payment.account,
          mode: payment.mode,
          read_from: payment.created_at,
          next_read_at: payment.updated_at,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  readingsStored.add(payment.connection_id);
}

function writePointer(client: DynamoDBDocumentClient, tableName: string, payment: Payment) {
  return client.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...settlementKeys.paymentByReference(payment.connection_id, payment.provider_reference as string),
        link_id: payment.link_id,
        mode: payment.mode,
        payment_id: payment.id,
      },
    }),
  );
}

/**
 * The backfill's (docs/operations.md#books-backfill): the pointer of a payment stored before settlements existed,
 * and its connection's reading moved back to the payment's time when it starts later (or made, due now), so that
 * the payouts holding older payments are read too. A reading's other progress is kept.
 */
export async function backfillReference(
  client: DynamoDBDocumentClient,
  tableName: string,
  payment: Payment,
): Promise<void> {
  await writePointer(client, tableName, payment);
  const { connection_id: id, created_at: from } = payment;
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: settlementKeys.reading(id),
        UpdateExpression:
          'SET id = :id, connection_id = :id, account = :account, #mode = :mode, read_from = :from, ' +
          'next_read_at = if_not_exists(next_read_at, :from), gsi3pk = :shard, gsi3sk = if_not_exists(gsi3sk, :due)',
        ConditionExpression: 'attribute_not_exists(read_from) OR read_from > :from',
        ExpressionAttributeNames: { '#mode': 'mode' },
        ExpressionAttributeValues: {
          ':id': id,
          ':account': payment.account,
          ':mode': payment.mode,
          ':from': from,
          ':shard': settlementKeys.readingShard(shardOf(id)),
          ':due': `${from}#${id}`,
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
