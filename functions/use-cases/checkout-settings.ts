import {
  type CheckoutSettings,
  type CheckoutSettingsInput,
  noSettings,
} from '../domain/checkout-settings.ts';
import type { Principal } from '../domain/principal.ts';
import type { CheckoutSettingsRepository } from '../ports/checkout-settings-repository.ts';

export interface CheckoutSettingsDependencies {
  settings: CheckoutSettingsRepository;
  now: () => Date;
}

/** The branding of the key's (account, mode): what is stored, or every field null. */
export async function getCheckoutSettings(
  deps: Pick<CheckoutSettingsDependencies, 'settings'>,
  principal: Principal,
): Promise<CheckoutSettings> {
  return (
    (await deps.settings.get(principal.account, principal.mode)) ??
    noSettings(principal.account, principal.mode)
  );
}

/** Replaces the branding of the key's (account, mode) whole (an absent field is cleared). */
export async function putCheckoutSettings(
  deps: CheckoutSettingsDependencies,
  principal: Principal,
  input: CheckoutSettingsInput,
): Promise<CheckoutSettings> {
  const settings: CheckoutSettings = {
    ...noSettings(principal.account, principal.mode),
    display_name: input.display_name ?? null,
    logo_url: input.logo_url ?? null,
    accent_color: input.accent_color?.toLowerCase() ?? null,
    support_email: input.support_email ?? null,
    updated_at: deps.now().toISOString(),
  };
  await deps.settings.put(settings);
  return settings;
}
