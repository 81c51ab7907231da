import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PaymentLink } from '../../domain/payment-link.ts';
import { paymentKeys } from './table-schema.ts';

/** A payment's refund total as its link's item holds it at one of the link's versions. */
export interface RefundedTotal {
  paymentId: string;
  refundedMinor: number;
  /** The link's `version` once that total was written. */
  linkVersion: number;
}

/**
 * The refund totals of a link's payments as its item holds them: a reusable link's per payment
 * (`paid_payments`), a single-use link's own payment's on the link and its refunded duplicate payments' in their
 * entries (`duplicate_payments`); each at the link's version.
 */
export function refundedTotalsOf(link: PaymentLink): RefundedTotal[] {
  const entries = Object.values(link.reusable ? link.paid_payments : link.duplicate_payments).map(
    (payment) => [payment.id, payment.refund_refunded_minor] as const,
  );
  const own = !link.reusable && link.payment ? [[link.payment.id, link.refund_refunded_minor] as const] : [];
  const paid = [...own, ...entries];
  return paid.map(([paymentId, refundedMinor]) => ({ paymentId, refundedMinor, linkVersion: link.version }));
}

/**
 * Copies a payment's refund total from its link's item onto the payment's own, where the books read it without
 * the link (docs/data-model.md#payment-money). The link's item stays the truth, where each refund is bounded by one
 * conditional write; each write to it that moves a total is followed by this copy, conditioned on the copy held
 * being of an older version of the link, so that copies landing out of order (concurrent settlements of one
 * link) keep the latest and a repeated copy changes nothing. It moves the payment's `version` on, so that a
 * version-conditioned write of the payment read before it cannot undo it. A payment without an item (recorded
 * before payments had their own) is left alone.
 */
export async function copyRefundedTotal(
  client: DynamoDBDocumentClient,
  tableName: string,
  link: Pick<PaymentLink, 'id' | 'mode'>,
  total: RefundedTotal,
): Promise<boolean> {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: paymentKeys.payment(link.id, link.mode, total.paymentId),
        UpdateExpression:
          'SET refunded_minor = :refunded, refunded_version = :linkVersion, version = version + :one',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(refunded_version) OR refunded_version < :linkVersion)',
        ExpressionAttributeValues: {
          ':refunded': total.refundedMinor,
          ':linkVersion': total.linkVersion,
          ':one': 1,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
