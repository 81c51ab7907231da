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
