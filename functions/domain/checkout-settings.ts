import type { Mode } from './principal.ts';

/**
 * How an (account, mode)'s checkout pages look (docs/checkout.md#branding): a display name, a logo, an accent
 * colour and a support address. Every field is optional; none set is our neutral look.
 */
export interface CheckoutSettings {
  account: string;
  mode: Mode;
  display_name: string | null;
  logo_url: string | null;
  accent_color: string | null;
  support_email: string | null;
  updated_at: string | null;
}

/** What the merchant sends: an absent or null field is cleared. */
export type CheckoutSettingsInput = Partial<
  Record<'display_name' | 'logo_url' | 'accent_color' | 'support_email', string | null | undefined>
>;

export const MAX_DISPLAY_NAME_LENGTH = 100;
export const MAX_EMAIL_LENGTH = 254;
export const ACCENT_COLOR_PATTERN = /^#[0-9A-Fa-f]{6}$/;
/** The accent is the background of white button text: WCAG 2.x AA asks 4.5:1 for normal text. */
export const MIN_ACCENT_CONTRAST = 4.5;
/** Our own accent, used when none is set (contrast with white 6.1:1). */
export const DEFAULT_ACCENT_COLOR = '#1f5fd6';

export const noSettings = (account: string, mode: Mode): CheckoutSettings => ({
  account,
  mode,
  display_name: null,
  logo_url: null,
  accent_color: null,
  support_email: null,
  updated_at: null,
});

/** WCAG 2.x relative luminance of an `#rrggbb` colour. */
function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2.x contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}
