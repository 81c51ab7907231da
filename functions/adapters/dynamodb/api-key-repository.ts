import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../../domain/api-key.ts';
import type { ApiKeyRepository } from '../../ports/api-key-repository.ts';
import { apiKeyFromItem } from './api-key-mapper.ts';
import { recordsOfListing } from './query.ts';
import { currentIndexNames, type IndexNames, keys } from './table-schema.ts';

export class DynamoApiKeyRepository implements ApiKeyRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly listingsIndex: string;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.listingsIndex = indexes.listings;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.apiKey(record.key_id),
          gsi1pk: keys.apiKeysOfAccount(record.account),
          gsi1sk: record.created_at,
          ...record,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.apiKey(keyId) }),
    );
    return Item ? apiKeyFromItem(Item) : undefined;
  }

  listByAccount(account: string): Promise<ApiKeyRecord[]> {
    return recordsOfListing(
      { client: this.client, tableName: this.tableName, indexName: this.listingsIndex },
      keys.apiKeysOfAccount(account),
      apiKeyFromItem,
    );
  }

  async revoke(keyId: string, at: Date): Promise<ApiKeyRecord | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.apiKey(keyId),
          UpdateExpression: 'SET #status = :revoked, revoked_at = if_not_exists(revoked_at, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at.toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? apiKeyFromItem(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}
