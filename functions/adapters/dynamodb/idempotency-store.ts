import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  IdempotencyRecord,
  IdempotencyScope,
  IdempotencyStore,
  StoredResponse,
} from '../../ports/idempotency-store.ts';
import { idempotencyRecordFromItem } from './idempotency-mapper.ts';
import { keys } from './table-schema.ts';

/** The key is hashed into the item key: it may be 255 characters of anything. */
const itemKey = ({ account, mode, key }: IdempotencyScope) =>
  keys.idempotency(account, mode, createHash('sha256').update(key).digest('base64url'));

export class DynamoIdempotencyStore implements IdempotencyStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async claim(scope: IdempotencyScope, record: IdempotencyRecord, now: Date) {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...itemKey(scope),
            ...record,
            ttl: Math.ceil(Date.parse(record.expires_at) / 1000),
          },
          // Free, expired (TTL deletion is late, and absent locally), or abandoned by a holder that died while
          // running the very same request.
          ConditionExpression:
            'attribute_not_exists(pk) OR expires_at <= :now OR (#status = :inProgress AND lock_until <= :now AND fingerprint = :fingerprint)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':now': now.toISOString(),
            ':inProgress': 'in_progress',
            ':fingerprint': record.fingerprint,
          },
        }),
      );
      return { claimed: true as const };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const { Item } = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: itemKey(scope), ConsistentRead: true }),
      );
      return { claimed: false as const, existing: Item ? idempotencyRecordFromItem(Item) : undefined };
    }
  }

  async complete(scope: IdempotencyScope, token: string, response: StoredResponse): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: itemKey(scope),
        UpdateExpression: 'SET #status = :completed, #response = :response',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#status': 'status', '#response': 'response', '#token': 'token' },
        ExpressionAttributeValues: { ':completed': 'completed', ':response': response, ':token': token },
      }),
    );
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: itemKey(scope),
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': token },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
