import { accountSettingsRepository } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { accountSettingsResource } from '../http/api/books-resources.ts';
import { getAccountSettings } from '../use-cases/personal-data.ts';

/** GET /v1/account-settings: the retention period of the key's mode (docs/api.md#account-settings). */
export const handler = apiHandler({ body: 'none' }, async ({ principal }) =>
  json(
    200,
    accountSettingsResource(await getAccountSettings({ settings: accountSettingsRepository() }, principal)),
  ),
);
