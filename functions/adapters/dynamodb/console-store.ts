import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AuditEntry, ConsoleSession, SignInGrant } from '../../domain/console-access.ts';
import type { ConsoleStore } from '../../ports/console-store.ts';
import { auditEntryFromItem, consoleSessionFromItem, signInLinkFromItem } from './console-mapper.ts';
import { decodedItems } from './item-decoder.ts';
import { consoleKeys } from './table-schema.ts';

/** Audit entries are kept this long, then DynamoDB deletes them (docs/console.md#audit-log). */
const AUDIT_RETENTION_DAYS = 400;
const epochSeconds = (date: Date) => Math.ceil(date.getTime() / 1000);

/** The console's records in the single table (keys: `consoleKeys` in table-schema.ts). */
export class DynamoConsoleStore implements ConsoleStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async saveSignInLink(tokenHash: string, grant: SignInGrant, expiresAt: Date): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...consoleKeys.signInLink(tokenHash),
          ...grant,
          expires_at: expiresAt.toISOString(),
          ttl: epochSeconds(expiresAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async findSignInLink(tokenHash: string): Promise<{ grant: SignInGrant; expires_at: string } | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: consoleKeys.signInLink(tokenHash),
        ConsistentRead: true,
      }),
    );
    if (!Item) return undefined;
    const { account, role, user, expires_at } = signInLinkFromItem(Item);
    return { grant: { account, role, user }, expires_at };
  }

  async consumeSignInLink(tokenHash: string, now: Date): Promise<SignInGrant | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: consoleKeys.signInLink(tokenHash),
          ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
          ExpressionAttributeValues: { ':now': now.toISOString() },
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (!Attributes) return undefined;
      const { account, role, user } = signInLinkFromItem(Attributes);
      return { account, role, user };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async saveSession(session: ConsoleSession): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...consoleKeys.session(session.id_hash),
          ...session,
          ttl: epochSeconds(new Date(session.expires_at)),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getSession(idHash: string): Promise<ConsoleSession | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: consoleKeys.session(idHash), ConsistentRead: true }),
    );
    return Item ? consoleSessionFromItem(Item) : undefined;
  }

  async updateSession(idHash: string, change: { expires_at: string; mode?: string }): Promise<void> {
    const setMode = change.mode ? ', #mode = :mode' : '';
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: consoleKeys.session(idHash),
        UpdateExpression: `SET expires_at = :expires, #ttl = :ttl${setMode}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#ttl': 'ttl', ...(change.mode && { '#mode': 'mode' }) },
        ExpressionAttributeValues: {
          ':expires': change.expires_at,
          ':ttl': epochSeconds(new Date(change.expires_at)),
          ...(change.mode && { ':mode': change.mode }),
        },
      }),
    );
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: consoleKeys.session(idHash) }),
    );
  }

  async recordAudit(entry: AuditEntry): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: auditItem(entry),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async settleAudit(entry: AuditEntry): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: auditItem(entry),
        ConditionExpression: 'outcome = :attempted',
        ExpressionAttributeValues: { ':attempted': 'attempted' },
      }),
    );
  }

  async listAudit(account: string, limit: number): Promise<AuditEntry[]> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': consoleKeys.audit(account, '').pk },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return decodedItems(Items, auditEntryFromItem);
  }
}

/** An entry's item: keyed by when and its id, so the account's partition reads newest first. */
function auditItem(entry: AuditEntry) {
  return {
    ...consoleKeys.audit(entry.account, `${entry.at}#${entry.id}`),
    ...entry,
    ttl: epochSeconds(new Date(entry.at)) + AUDIT_RETENTION_DAYS * 86_400,
  };
}
