import type { AccountSettings } from '../../domain/personal-data.ts';

/** The account settings as the API shows them (`AccountSettingsSchema`). */
export const accountSettingsResource = (settings: AccountSettings) => ({
  object: 'account_settings' as const,
  mode: settings.mode,
  personal_data_retention_days: settings.personal_data_retention_days,
  updated_at: settings.updated_at,
});
