import type { z } from 'zod';
import type { AccountSettings } from '../../domain/personal-data.ts';
import type { PaymentSummarySchema } from './books-response-schemas.ts';

/** The account settings as the API shows them (`AccountSettingsSchema`). */
export const accountSettingsResource = (settings: AccountSettings) => ({
  object: 'account_settings' as const,
  mode: settings.mode,
  personal_data_retention_days: settings.personal_data_retention_days,
  time_zone: settings.time_zone,
  updated_at: settings.updated_at,
});

/** `GET /v1/payments/summary`'s answer (`PaymentSummarySchema`). */
export type PaymentSummaryResource = z.infer<typeof PaymentSummarySchema>;
