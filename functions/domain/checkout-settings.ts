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

/**
 * What a CSP source expression may carry beyond RFC 3986's unreserved characters and percent-escapes: the
 * sub-delimiters but `;` and `,` (which end a directive and a policy) and `'` (which quotes keywords such as
 * `'unsafe-inline'`), and `:`, `@`, `/`.
 */
const CSP_PATH_CHARACTER = /[A-Za-z0-9\-._~%!$&()*+=:@/]/;
/** A host as a CSP source names it: a DNS name or IPv4 address, or an IPv6 literal, with an optional port. */
const CSP_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Why a logo URL cannot be named in the checkout page's `img-src`, or undefined when it can. The CSP names the
 * logo by its origin and path; a query or fragment is not part of it, so what they hold does not matter.
 */
export function logoUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined; // not a URL at all: the URL rules say so
  }
  // The checkout page's Content-Security-Policy names the logo by its host and path (CSP 3's source grammar).
  if (!CSP_HOST.test(url.host)) {
    return 'Must have a host of letters, digits, dots and hyphens (or an IP address): the checkout page names it in its Content-Security-Policy.';
  }
  if (/[;,']/.test(url.pathname)) {
    return "Must not contain ';', ',' or \"'\" in its path: the checkout page names the path in its Content-Security-Policy. Percent-encode them (%3B, %2C, %27).";
  }
  return undefined;
}

/**
 * The logo as a CSP `img-src` source: its origin and path. A source expression cannot carry a query, and a
 * path-only source matches the URL whatever its query (CSP 3, "path-part matches"), so `logo.png?v=2` loads.
 * Characters that would end the directive or the policy, or quote a keyword, are percent-encoded: browsers
 * decode both sides before comparing paths, so the source still matches. Undefined when the host cannot be
 * named safely (a logo stored before these rules): the page then loads no image at all.
 */
export function logoImageSource(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || !CSP_HOST.test(url.host)) return undefined;
  const path = [...url.pathname]
    .map((character) =>
      CSP_PATH_CHARACTER.test(character)
        ? character
        : [...new TextEncoder().encode(character)]
            .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
            .join(''),
    )
    .join('');
  return `${url.protocol}//${url.host}${path}`;
}

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
