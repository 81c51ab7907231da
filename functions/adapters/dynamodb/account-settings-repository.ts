import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountSettings } from '../../domain/personal-data.ts';
import type { Mode } from '../../domain/principal.ts';
import { type CollectionSettings, DEFAULT_COLLECTION } from '../../domain/subscription-schedule.ts';
import { DEFAULT_TIME_ZONE } from '../../domain/time-zones.ts';
import type { AccountSettingsRepository } from '../../ports/personal-data.ts';
import { personalDataKeys, withoutKeys } from './table-schema.ts';

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
    if (!Item) return undefined;
    const stored = withoutKeys<
      Omit<AccountSettings, 'time_zone' | keyof CollectionSettings> &
        Partial<Pick<AccountSettings, 'time_zone' | keyof CollectionSettings>>
    >(Item);
    // Settings stored before they had a time zone count their days in the default one; before subscriptions,
    // they collect on the default retry days.
    return { ...DEFAULT_COLLECTION, ...stored, time_zone: stored.time_zone ?? DEFAULT_TIME_ZONE };
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
