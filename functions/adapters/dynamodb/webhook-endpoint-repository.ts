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
import {
  type EndpointSecrets,
  type EndpointStats,
  HEALTH_WINDOW,
  type WebhookEndpoint,
} from '../../domain/webhook-endpoint.ts';
import type {
  EndpointChanges,
  StoredWebhookEndpoint,
  WebhookEndpointRepository,
} from '../../ports/webhook-endpoints.ts';
import { endpointFromItem } from './endpoint-mapper.ts';
import { decodedItems } from './item-decoder.ts';
import { allItems } from './query.ts';
import { endpointKeys } from './table-schema.ts';
import { setAttributes } from './update-expressions.ts';

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
    return decodedItems(items, endpointFromItem).sort((a, b) => a.created_at.localeCompare(b.created_at));
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
    return Item ? endpointFromItem(Item) : undefined;
  }

  async update(
    account: string,
    mode: Mode,
    id: string,
    changes: EndpointChanges,
  ): Promise<StoredWebhookEndpoint | undefined> {
    const update = setAttributes(changes);
    if (changes.status === 'enabled') {
      // Conditioned on the endpoint being disabled: enabling an enabled endpoint keeps its stats, and an endpoint
      // disabled meanwhile (by delivery) still gets them cleared.
      const reenabled = await this.conditionalUpdate(account, mode, id, {
        UpdateExpression: `${update.UpdateExpression} REMOVE #window, failing_since, disabled_reason`,
        ConditionExpression: '#status = :disabled',
        ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#window': 'window' },
        ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':disabled': 'disabled' },
      });
      if (reenabled) return reenabled;
    }
    return this.conditionalUpdate(account, mode, id, update);
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

  async recordAttempt(
    account: string,
    mode: Mode,
    id: string,
    outcome: { ok: boolean; durationMs: number; at: Date },
  ): Promise<EndpointStats | undefined> {
    const updated = await this.conditionalUpdate(account, mode, id, {
      UpdateExpression: outcome.ok
        ? 'SET #window = list_append(if_not_exists(#window, :empty), :one) REMOVE failing_since'
        : 'SET #window = list_append(if_not_exists(#window, :empty), :one), failing_since = if_not_exists(failing_since, :at)',
      ExpressionAttributeNames: { '#window': 'window' },
      ExpressionAttributeValues: {
        ':empty': [],
        ':one': [[outcome.ok ? 1 : 0, outcome.durationMs]],
        ...(!outcome.ok && { ':at': outcome.at.toISOString() }),
      },
    });
    if (!updated) return undefined;
    const excess = updated.stats.window.length - HEALTH_WINDOW;
    if (excess > 0) {
      // The oldest ones: concurrent appends only add at the end, so these indexes stay the oldest.
      await this.conditionalUpdate(account, mode, id, {
        UpdateExpression: `REMOVE ${Array.from({ length: excess }, (_, index) => `#window[${index}]`).join(', ')}`,
        ExpressionAttributeNames: { '#window': 'window' },
        ExpressionAttributeValues: {},
      });
    }
    return updated.stats;
  }

  disableFailing(
    account: string,
    mode: Mode,
    id: string,
    failingSince: string,
    at: Date,
  ): Promise<StoredWebhookEndpoint | undefined> {
    return this.conditionalUpdate(account, mode, id, {
      UpdateExpression: 'SET #status = :disabled, updated_at = :at, disabled_reason = :reason',
      ConditionExpression: '#status = :enabled AND failing_since = :since',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':disabled': 'disabled',
        ':enabled': 'enabled',
        ':since': failingSince,
        ':at': at.toISOString(),
        ':reason': 'failing',
      },
    });
  }

  async claimTest(account: string, mode: Mode, id: string, now: Date, until: Date): Promise<boolean> {
    const claimed = await this.conditionalUpdate(account, mode, id, {
      UpdateExpression: 'SET test_until = :until',
      ConditionExpression: 'attribute_not_exists(test_until) OR test_until <= :now',
      ExpressionAttributeValues: { ':until': until.getTime(), ':now': now.getTime() },
    });
    return claimed !== undefined;
  }

  async releaseTest(account: string, mode: Mode, id: string, until: Date): Promise<void> {
    await this.conditionalUpdate(account, mode, id, {
      UpdateExpression: 'REMOVE test_until',
      ConditionExpression: 'test_until = :until',
      ExpressionAttributeValues: { ':until': until.getTime() },
    });
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
      ConditionExpression?: string;
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
          ReturnValues: 'ALL_NEW',
          ...update,
          ConditionExpression: update.ConditionExpression
            ? `attribute_exists(pk) AND ${update.ConditionExpression}`
            : 'attribute_exists(pk)',
          ...(Object.keys(update.ExpressionAttributeValues).length
            ? {}
            : { ExpressionAttributeValues: undefined }),
        }),
      );
      return Attributes ? endpointFromItem(Attributes) : undefined;
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
