import type { CheckoutSettings } from '../domain/checkout-settings.ts';
import type { Mode } from '../domain/principal.ts';

/** The branding of each (account, mode)'s checkout pages (docs/checkout.md#branding). */
export interface CheckoutSettingsRepository {
  /** The stored settings, or undefined when the (account, mode) never set any. */
  get(account: string, mode: Mode): Promise<CheckoutSettings | undefined>;
  put(settings: CheckoutSettings): Promise<void>;
}
