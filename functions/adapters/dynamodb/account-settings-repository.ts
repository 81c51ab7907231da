import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountSettings } from '../../domain/personal-data.ts';
import type { Mode } from '../../domain/principal.ts';
import type { AccountSettingsRepository } from '../../ports/personal-data.ts';
import { accountSettingsFromItem } from './settings-mapper.ts';
import { personalDataKeys } from './table-schema.ts';

/** One item per (account, mode): `ACCOUNT#<acc>` / `ACCOUNT_SETTINGS#<mode>`, replaced whole by `PUT`. */
export class DynamoAccountSettingsRepository implements AccountSettingsRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async get(account: string, mode: Mode): Promise<AccountSettings | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: personalDataKeys.accountSettings(account, mode) }),
    );
    return Item ? accountSettingsFromItem(Item) : undefined;
  }

  async put(settings: AccountSettings): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...personalDataKeys.accountSettings(settings.account, settings.mode), ...settings },
      }),
    );
  }
}
