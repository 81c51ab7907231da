import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SandboxSession, SandboxSessionStore } from '../../ports/sandbox-sessions.ts';
import { checkoutKeys, withoutKeys } from './table-schema.ts';

/** Sandbox sessions are kept a week past their expiry, then DynamoDB's TTL removes them. */
const RETENTION_SECONDS = 7 * 86_400;

export class DynamoSandboxSessionStore implements SandboxSessionStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async create(session: SandboxSession): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...checkoutKeys.sandboxSession(session.id),
          ...session,
          ttl: Math.floor(Date.parse(session.expires_at) / 1000) + RETENTION_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<SandboxSession | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: checkoutKeys.sandboxSession(id),
        ConsistentRead: true,
      }),
    );
    return Item ? withoutKeys<SandboxSession>(Item) : undefined;
  }

  async complete(id: string, paymentReference: string, now: Date): Promise<SandboxSession | undefined> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkoutKeys.sandboxSession(id),
          UpdateExpression: 'SET #status = :complete, payment_reference = :reference',
          ConditionExpression: '#status = :open AND expires_at > :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':complete': 'complete',
            ':open': 'open',
            ':reference': paymentReference,
            ':now': now.toISOString(),
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    return this.get(id);
  }

  async decline(id: string): Promise<void> {
    await this.updateIfOpen(id, 'SET #status = :failed ADD declined_attempts :one', {
      ':one': 1,
      ':failed': 'failed',
    });
  }

  async expire(id: string): Promise<boolean> {
    return this.updateIfOpen(id, 'SET #status = :expired', { ':expired': 'expired' });
  }

  /** Whether the session was open (and is now changed). */
  private async updateIfOpen(id: string, update: string, values: Record<string, unknown>): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkoutKeys.sandboxSession(id),
          UpdateExpression: update,
          ConditionExpression: '#status = :open',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':open': 'open', ...values },
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return false;
    }
  }
}
