import { checkoutSettingsRepository } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { settingsResource } from '../http/api/resources.ts';
import { getCheckoutSettings } from '../use-cases/checkout-settings.ts';

/** GET /v1/checkout-settings: the branding of the key's mode (docs/checkout.md#branding). */
export const handler = apiHandler({ body: 'none' }, async ({ principal }) =>
  json(
    200,
    settingsResource(await getCheckoutSettings({ settings: checkoutSettingsRepository() }, principal)),
  ),
);
