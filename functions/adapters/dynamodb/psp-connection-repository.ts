import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type FeeLine, isConnectionId, type PspConnection } from '../../domain/connection.ts';
import { type ConnectionHealth, isDownForOutages } from '../../domain/connection-health.ts';
import type { Mode } from '../../domain/principal.ts';
import type { Routing } from '../../domain/routing.ts';
import type {
  ConnectionDirectory,
  ConnectionState,
  PspConnectionRepository,
} from '../../ports/psp-connections.ts';
import { connectionStateFromItem, connectionToItem, routingFromItem } from './connection-mapper.ts';
import { decodedItems } from './item-decoder.ts';
import { allItems } from './query.ts';
import { connectionKeys, currentIndexNames, type IndexNames } from './table-schema.ts';

/** Concurrent health writes on one connection settle within a few rounds; beyond that the change is dropped. */
const MAX_HEALTH_ATTEMPTS = 4;

export class DynamoPspConnectionRepository implements PspConnectionRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly listingsIndex: string;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.listingsIndex = indexes.listings;
  }

  async create(connection: PspConnection): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: connectionToItem(connection),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async get(id: string): Promise<ConnectionState | undefined> {
    if (!isConnectionId(id)) return undefined;
    const { gsi1pk, gsi1sk } = connectionKeys.byId(id);
    // The index finds its key (it holds keys only); the connection is then read, strongly consistent.
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: this.listingsIndex,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
      }),
    );
    const entry = Items?.[0];
    if (!entry) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: entry.pk, sk: entry.sk },
        ConsistentRead: true,
      }),
    );
    return Item ? connectionStateFromItem(Item) : undefined;
  }

  async directory(account: string, mode: Mode): Promise<ConnectionDirectory> {
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': connectionKeys.directory(account, mode) },
      ConsistentRead: true,
    });
    const connections = decodedItems(
      items.filter((item) => item.kind === 'connection'),
      connectionStateFromItem,
    );
    const [routing = null] = decodedItems(
      items.filter((item) => item.kind === 'routing'),
      routingFromItem,
    );
    connections.sort(
      (a, b) =>
        a.connection.created_at.localeCompare(b.connection.created_at) ||
        a.connection.id.localeCompare(b.connection.id),
    );
    return { connections, routing };
  }

  async setEnabled(id: string, enabled: boolean): Promise<PspConnection | undefined> {
    return this.setAttribute(id, 'enabled', enabled);
  }

  async setFees(id: string, fees: FeeLine[]): Promise<PspConnection | undefined> {
    return this.setAttribute(id, 'fees', fees);
  }

  private async setAttribute(
    id: string,
    name: 'enabled' | 'fees',
    value: unknown,
  ): Promise<PspConnection | undefined> {
    const found = await this.get(id);
    if (!found) return undefined;
    const { account, mode } = found.connection;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: connectionKeys.connection(account, mode, id),
          UpdateExpression: 'SET #name = :value',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#name': name },
          ExpressionAttributeValues: { ':value': value },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? connectionStateFromItem(Attributes).connection : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async remove(id: string): Promise<PspConnection | undefined> {
    const found = await this.get(id);
    if (!found) return undefined;
    const { account, mode } = found.connection;
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: connectionKeys.connection(account, mode, id),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes ? connectionStateFromItem(Attributes).connection : undefined;
  }

  async updateHealth(
    connection: Pick<PspConnection, 'id' | 'account' | 'mode'>,
    change: (health: ConnectionHealth) => ConnectionHealth | undefined,
    known?: ConnectionHealth,
  ): Promise<ConnectionHealth | undefined> {
    const key = connectionKeys.connection(connection.account, connection.mode, connection.id);
    let current = known;
    for (let attempt = 1; attempt <= MAX_HEALTH_ATTEMPTS; attempt++) {
      if (!current) {
        const { Item } = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
        );
        if (!Item) return undefined;
        current = connectionStateFromItem(Item).health;
      }
      const next = change(current);
      if (!next) return undefined;
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            // `trials_to_pass` alone says a connection is down for outages; `down_for_outages` is written beside it
            // for the release before, whose functions read it and answer until a deploy has replaced them all
            // (docs/data-model.md#checkout). Drop it in the next release.
            UpdateExpression:
              'SET consecutive_failures = :failures, down_until = :down, trials_to_pass = :trials, down_for_outages = :outages, revision = :next',
            ConditionExpression: 'attribute_exists(pk) AND revision = :expected',
            ExpressionAttributeValues: {
              ':failures': next.consecutive_failures,
              ':down': next.down_until,
              ':trials': next.trials_to_pass,
              ':outages': isDownForOutages(next),
              ':next': current.revision + 1,
              ':expected': current.revision,
            },
          }),
        );
        return { ...next, revision: current.revision + 1 };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        current = undefined; // another instance wrote first: decide again from what is stored now
      }
    }
    return undefined;
  }

  async putRouting(account: string, mode: Mode, routing: Routing): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...connectionKeys.routing(account, mode), kind: 'routing', account, mode, ...routing },
      }),
    );
  }
}
