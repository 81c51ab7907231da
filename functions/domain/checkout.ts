import type { PaymentLink, PspSession } from './payment-link.ts';

/**
 * Pure rules of the checkout page: when a PSP session may be reused, how long a new one lives, and which
 * requests are previews that must not create one.
 */

/** A session is reused only while the buyer still has this long to pay on it. */
export const SESSION_REUSE_MARGIN_MS = 5 * 60_000;

/**
 * The link's current PSP session if it can still serve a buyer, else undefined: it must come from one of the
 * connections that may serve the link now (a disabled or removed connection's session is not reused).
 */
export function reusableSession(
  link: PaymentLink,
  connectionIds: readonly string[],
  now: Date,
): PspSession | undefined {
  const session = link.psp_session;
  if (!session?.payment_id || !connectionIds.includes(session.connection_id)) return undefined;
  return Date.parse(session.expires_at) - SESSION_REUSE_MARGIN_MS > now.getTime() ? session : undefined;
}

/**
 * When a new PSP session should expire: `preferredMs` from now, never later than `limits.maxMs`, capped by
 * the link's own `expires_at`, but never sooner than `limits.minMs` (a PSP such as Stripe refuses shorter
 * sessions; a payment confirmed after the link expired is still recorded, docs/api.md#states-expiry-and-webhooks).
 */
export function sessionExpiry(
  link: PaymentLink,
  now: Date,
  limits: { minMs: number; maxMs: number; preferredMs: number },
): Date {
  let at = now.getTime() + Math.min(limits.preferredMs, limits.maxMs);
  if (link.expires_at !== null) at = Math.min(at, Date.parse(link.expires_at));
  return new Date(Math.max(at, now.getTime() + limits.minMs));
}

/** The link with its new session, one version later: the write that stores it is conditioned on `version`. */
export function withSession(link: PaymentLink, session: PspSession): PaymentLink {
  return { ...link, psp_session: session, version: link.version + 1 };
}

/** User agents of link unfurlers and crawlers (chat apps, social networks, search engines, link checkers). */
const PREVIEW_AGENTS =
  /bot\b|bot\/|crawler|spider|preview|facebookexternalhit|facebookcatalog|slack|whatsapp|telegram|discord|skype|linkedin|embedly|iframely|pinterest|vkshare|outlook|microsoft office|curl-preview/i;

/**
 * Whether a checkout request is a preview or prefetch rather than a buyer opening the page, so that it gets
 * the page without a PSP session being created. The rule (docs/checkout.md):
 * - `HEAD`;
 * - a prefetch/prerender announced by `Sec-Purpose` or `Purpose` (`prefetch`, `prerender`) or `X-Moz: prefetch`;
 * - Fetch Metadata that is present and not a top-level navigation (`Sec-Fetch-Mode` other than `navigate`, or
 *   `Sec-Fetch-Dest` other than `document`), e.g. a fetch(), an <img> or an <iframe>;
 * - a user agent of a known link unfurler or crawler (Slackbot, facebookexternalhit, WhatsApp, Twitterbot, …).
 * A request with no Fetch Metadata and an ordinary user agent (an older browser, curl) counts as a buyer.
 */
export function isPreviewRequest(method: string, headers: Record<string, string | undefined>): boolean {
  if (method.toUpperCase() === 'HEAD') return true;
  const purpose = `${headers['sec-purpose'] ?? ''} ${headers.purpose ?? ''} ${headers['x-moz'] ?? ''}`;
  if (/prefetch|prerender|preview/i.test(purpose)) return true;
  const mode = headers['sec-fetch-mode'];
  if (mode !== undefined && mode !== 'navigate') return true;
  const dest = headers['sec-fetch-dest'];
  if (dest !== undefined && dest !== 'document') return true;
  return PREVIEW_AGENTS.test(headers['user-agent'] ?? '');
}
