import type { CheckoutSettings } from '../../domain/checkout-settings.ts';
import type { AccountSettings } from '../../domain/personal-data.ts';
import { AFTER_RETRIES, DEFAULT_COLLECTION } from '../../domain/subscription-schedule.ts';
import { DEFAULT_TIME_ZONE } from '../../domain/time-zones.ts';
import type { PspConfig } from '../../ports/psp-config-repository.ts';
import { arrayOf, itemDecoder, mode, nullable, number, oneOf, string, withDefault } from './item-decoder.ts';

/** The branding of an (account, mode)'s checkout pages: every field stored since branding exists (2026-11-25). */
export const checkoutSettingsFromItem = /* @__PURE__ */ itemDecoder<CheckoutSettings>(
  'checkout settings',
  () => ({
    account: string,
    mode,
    display_name: nullable(string),
    logo_url: nullable(string),
    accent_color: nullable(string),
    support_email: nullable(string),
    updated_at: nullable(string),
  }),
);

/**
 * An (account, mode)'s settings: retention of personal data since they exist (2026-11-28); the time zone its
 * dates are read in since 2026-11-29 (older settings count their days in the default zone); how subscriptions are
 * collected since 2026-11-30 (older settings retry on the default days, then cancel).
 */
export const accountSettingsFromItem = /* @__PURE__ */ itemDecoder<AccountSettings>(
  'account settings',
  () => ({
    account: string,
    mode,
    personal_data_retention_days: number,
    time_zone: withDefault(string, () => DEFAULT_TIME_ZONE),
    subscription_retry_days: withDefault(arrayOf(number), () => [
      ...DEFAULT_COLLECTION.subscription_retry_days,
    ]),
    subscription_after_retries: withDefault(
      oneOf(AFTER_RETRIES),
      () => DEFAULT_COLLECTION.subscription_after_retries,
    ),
    updated_at: nullable(string),
  }),
);

/**
 * The one PSP an (account, mode) chose before connections existed (2026-11-22), read only to migrate it. Its
 * `provider` is the name that configuration used, not a connection's provider (connection-mapper.ts).
 */
export const pspConfigFromItem = /* @__PURE__ */ itemDecoder<PspConfig>('PSP config', () => ({
  account: string,
  mode,
  provider: string,
  updated_at: string,
}));
