import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isId } from '../../domain/ids.ts';
import type { Mode } from '../../domain/principal.ts';
import type { EndpointSecrets, WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import type {
  EndpointChanges,
  StoredWebhookEndpoint,
  WebhookEndpointRepository,
} from '../../ports/webhook-endpoints.ts';
import { allItems } from './query.ts';
import { endpointKeys, withoutKeys } from './table-schema.ts';

const SEALED_FIELDS = ['secret', 'previous_secret', 'previous_until'] as const;

function toStored(item: Record<string, unknown>): StoredWebhookEndpoint {
  const record = withoutKeys<Record<string, unknown>>(item);
  const sealed: EndpointSecrets = { secret: record.secret as string };
  if (typeof record.previous_secret === 'string' && typeof record.previous_until === 'string') {
    sealed.previous_secret = record.previous_secret;
    sealed.previous_until = record.previous_until;
  }
  for (const field of [...SEALED_FIELDS, 'kind']) delete record[field];
  return { ...(record as unknown as WebhookEndpoint), sealed };
}

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

/** Webhook endpoints in DynamoDB: `WEBHOOK_ENDPOINTS#<account>#<mode>` / `ENDPOINT#<id>`, and a `COUNT` item. */
export class DynamoWebhookEndpointRepository implements WebhookEndpointRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async create(endpoint: WebhookEndpoint, sealed: EndpointSecrets, max: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKeys.count(endpoint.account, endpoint.mode),
          UpdateExpression: 'SET endpoint_count = if_not_exists(endpoint_count, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(endpoint_count) OR endpoint_count < :max',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': max },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...endpointKeys.endpoint(endpoint.account, endpoint.mode, endpoint.id),
            kind: 'webhook_endpoint',
            ...endpoint,
            ...sealed,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      await this.uncount(endpoint.account, endpoint.mode);
      throw error;
    }
    return true;
  }

  async list(account: string, mode: Mode): Promise<StoredWebhookEndpoint[]> {
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': endpointKeys.directory(account, mode), ':prefix': 'ENDPOINT#' },
      ConsistentRead: true,
    });
    return items.map(toStored).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async get(account: string, mode: Mode, id: string): Promise<StoredWebhookEndpoint | undefined> {
    if (!isId('we', id)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: endpointKeys.endpoint(account, mode, id),
        ConsistentRead: true,
      }),
    );
    return Item ? toStored(Item) : undefined;
  }

  async update(
    account: string,
    mode: Mode,
    id: string,
    changes: EndpointChanges,
  ): Promise<StoredWebhookEndpoint | undefined> {
    const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
    return this.conditionalUpdate(account, mode, id, {
      UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
    });
  }

  async delete(account: string, mode: Mode, id: string): Promise<boolean> {
    if (!isId('we', id)) return false;
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: endpointKeys.endpoint(account, mode, id),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await this.uncount(account, mode);
    return true;
  }

  rotateSecret(
    account: string,
    mode: Mode,
    id: string,
    sealedSecret: string,
    previousUntil: Date,
  ): Promise<StoredWebhookEndpoint | undefined> {
    return this.conditionalUpdate(account, mode, id, {
      UpdateExpression:
        'SET previous_secret = secret, previous_until = :until, secret = :next, updated_at = :now',
      ExpressionAttributeValues: {
        ':next': sealedSecret,
        ':until': previousUntil.toISOString(),
        ':now': new Date().toISOString(),
      },
    });
  }

  private async conditionalUpdate(
    account: string,
    mode: Mode,
    id: string,
    update: {
      UpdateExpression: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<StoredWebhookEndpoint | undefined> {
    if (!isId('we', id)) return undefined;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKeys.endpoint(account, mode, id),
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_NEW',
          ...update,
        }),
      );
      return Attributes ? toStored(Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  private async uncount(account: string, mode: Mode): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKeys.count(account, mode),
          UpdateExpression: 'SET endpoint_count = endpoint_count - :one',
          ConditionExpression: 'endpoint_count > :zero',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }
}
