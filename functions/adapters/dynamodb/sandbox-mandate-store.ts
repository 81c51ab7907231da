import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SandboxCharge, SandboxMandate, SandboxMandateStore } from '../../ports/sandbox-mandates.ts';
import { decodedItems } from './item-decoder.ts';
import { allItems } from './query.ts';
import {
  sandboxChargeFromItem as chargeFromItem,
  sandboxMandateFromItem as mandateFromItem,
} from './sandbox-mandate-mapper.ts';
import { checkoutKeys } from './table-schema.ts';

/**
 * The sandbox PSP's mandates, each with its charges in its own partition (`SANDBOX#<mandate id>`). Kept as long as
 * the table: a mandate outlives the session that opened it, for as long as its subscription renews.
 */
export class DynamoSandboxMandateStore implements SandboxMandateStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async create(mandate: SandboxMandate): Promise<SandboxMandate> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...checkoutKeys.sandboxMandate(mandate.id), ...mandate },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return mandate;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const stored = await this.get(mandate.id);
      if (!stored) throw new Error(`Sandbox mandate ${mandate.id} was neither stored nor found.`);
      return stored;
    }
  }

  async get(id: string): Promise<SandboxMandate | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: checkoutKeys.sandboxMandate(id),
        ConsistentRead: true,
      }),
    );
    return Item ? mandateFromItem(Item) : undefined;
  }

  async update(
    id: string,
    changes: Partial<Pick<SandboxMandate, 'renewals' | 'status'>>,
    now: Date,
  ): Promise<SandboxMandate | undefined> {
    const set = Object.entries(changes).filter(([, value]) => value !== undefined);
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkoutKeys.sandboxMandate(id),
          UpdateExpression: `SET updated_at = :now${set.map(([name]) => `, #${name} = :${name}`).join('')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.fromEntries(set.map(([name]) => [`#${name}`, name])),
          ExpressionAttributeValues: {
            ':now': now.toISOString(),
            ...Object.fromEntries(set.map(([name, value]) => [`:${name}`, value])),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? mandateFromItem(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async recordCharge(charge: SandboxCharge): Promise<SandboxCharge> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...checkoutKeys.sandboxCharge(charge.mandate_id, charge.reference), ...charge },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return charge;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const stored = await this.getCharge(charge.mandate_id, charge.reference);
      if (!stored) throw new Error(`Sandbox charge ${charge.reference} was neither stored nor found.`);
      return stored;
    }
  }

  async getCharge(mandateId: string, reference: string): Promise<SandboxCharge | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: checkoutKeys.sandboxCharge(mandateId, reference),
        ConsistentRead: true,
      }),
    );
    return Item ? chargeFromItem(Item) : undefined;
  }

  async chargesOf(mandateId: string): Promise<SandboxCharge[]> {
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :charge)',
      ExpressionAttributeValues: { ':pk': checkoutKeys.sandboxMandate(mandateId).pk, ':charge': 'CHARGE#' },
      ConsistentRead: true,
    });
    return decodedItems(items, chargeFromItem);
  }
}
