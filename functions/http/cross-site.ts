import type { HtmlEvent } from './html-handler.ts';

/**
 * Whether a browser sent this request from another site (docs/security.md#forms-from-other-sites): Fetch
 * Metadata's `Sec-Fetch-Site` other than `same-origin`, or an `Origin` that names another origin than `ownOrigin`
 * (what a browser without Fetch Metadata still sends). Our pages send no referrer, so browsers send `Origin: null` with our own forms:
 * only a named other origin tells. A request with neither header is no browser's request from another site.
 */
export function sentFromAnotherSite(headers: HtmlEvent['headers'], ownOrigin: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return true;
  const origin = headers.origin;
  return origin !== undefined && origin !== 'null' && origin !== ownOrigin;
}
