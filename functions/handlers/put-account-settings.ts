import { accountSettingsRepository, now } from '../dependencies.ts';
import { accountSettingsRequest } from '../http/api/account-settings-schemas.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { accountSettingsResource } from '../http/api/books-resources.ts';
import { validate } from '../http/validate.ts';
import { putAccountSettings } from '../use-cases/personal-data.ts';

/** PUT /v1/account-settings: replaces the settings of the key's mode and returns them. */
export const handler = apiHandler({ audit: apiAudit, body: 'json' }, async ({ principal, body }) => {
  const input = validate(accountSettingsRequest(), body);
  const settings = await putAccountSettings({ settings: accountSettingsRepository(), now }, principal, input);
  return json(200, accountSettingsResource(settings));
});
