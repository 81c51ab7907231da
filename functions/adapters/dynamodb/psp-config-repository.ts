import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import type { PspConfig, PspConfigRepository } from '../../ports/psp-config-repository.ts';
import { pspConfigFromItem } from './settings-mapper.ts';
import { checkoutKeys } from './table-schema.ts';

export class DynamoPspConfigRepository implements PspConfigRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async get(account: string, mode: Mode): Promise<PspConfig | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkoutKeys.pspConfig(account, mode) }),
    );
    return Item ? pspConfigFromItem(Item) : undefined;
  }

  async put(config: PspConfig): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...checkoutKeys.pspConfig(config.account, config.mode), ...config },
      }),
    );
  }
}
