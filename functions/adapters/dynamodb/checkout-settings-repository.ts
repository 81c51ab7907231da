import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CheckoutSettings } from '../../domain/checkout-settings.ts';
import type { Mode } from '../../domain/principal.ts';
import type { CheckoutSettingsRepository } from '../../ports/checkout-settings-repository.ts';
import { checkoutSettingsFromItem } from './settings-mapper.ts';
import { checkoutKeys } from './table-schema.ts';

/** One item per (account, mode): `ACCOUNT#<acc>` / `CHECKOUT_SETTINGS#<mode>`, replaced whole by `PUT`. */
export class DynamoCheckoutSettingsRepository implements CheckoutSettingsRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async get(account: string, mode: Mode): Promise<CheckoutSettings | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkoutKeys.checkoutSettings(account, mode) }),
    );
    return Item ? checkoutSettingsFromItem(Item) : undefined;
  }

  async put(settings: CheckoutSettings): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...checkoutKeys.checkoutSettings(settings.account, settings.mode), ...settings },
      }),
    );
  }
}
