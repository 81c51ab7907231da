import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SandboxSession, SandboxSessionStore } from '../../ports/sandbox-sessions.ts';
import { sandboxSessionFromItem } from './sandbox-session-mapper.ts';
import { checkoutKeys } from './table-schema.ts';

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
    return Item ? sandboxSessionFromItem(Item) : undefined;
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

  async startProcessing(
    id: string,
    paymentReference: string,
    settlesAt: Date,
    now: Date,
  ): Promise<SandboxSession | undefined> {
    await this.updateIf(
      id,
      'SET #status = :processing, payment_reference = :reference, settles_at = :settles',
      '#status = :open AND expires_at > :now',
      {
        ':open': 'open',
        ':processing': 'processing',
        ':reference': paymentReference,
        ':settles': settlesAt.toISOString(),
        ':now': now.toISOString(),
      },
    );
    return this.get(id);
  }

  async settle(id: string, now: Date): Promise<SandboxSession | undefined> {
    await this.updateIf(id, 'SET #status = :complete', '#status = :processing AND settles_at <= :now', {
      ':processing': 'processing',
      ':complete': 'complete',
      ':now': now.toISOString(),
    });
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
  private updateIfOpen(id: string, update: string, values: Record<string, unknown>): Promise<boolean> {
    return this.updateIf(id, update, '#status = :open', { ':open': 'open', ...values });
  }

  /** Whether the condition held (and the session is now changed). */
  private async updateIf(
    id: string,
    update: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkoutKeys.sandboxSession(id),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return false;
    }
  }
}
