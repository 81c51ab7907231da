import { checkoutSettingsRepository, now } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { checkoutSettingsRequest } from '../http/api/checkout-settings-schemas.ts';
import { settingsResource } from '../http/api/resources.ts';
import { validate } from '../http/validate.ts';
import { putCheckoutSettings } from '../use-cases/checkout-settings.ts';

/** PUT /v1/checkout-settings: replaces the branding of the key's mode and returns it. */
export const handler = apiHandler({ audit: apiAudit, body: 'json' }, async ({ principal, body }) => {
  const input = validate(checkoutSettingsRequest(), body);
  const settings = await putCheckoutSettings(
    { settings: checkoutSettingsRepository(), now },
    principal,
    input,
  );
  return json(200, settingsResource(settings));
});
