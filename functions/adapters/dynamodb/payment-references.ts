import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '../../domain/payment.ts';
import { settlementKeys } from './settlement-keys.ts';
import { payoutReadingToItem } from './settlement-mapper.ts';

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
  await client.send(
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
