import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { HtmlEvent } from './html-handler.ts';

/**
 * The header the CloudFront front adds to every request it passes to the API, with the front's secret
 * (lib/constructs/edge-protection.ts). CloudFront replaces a header of this name that a client sent.
 */
export const EDGE_SECRET_HEADER = 'x-origin-verify';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The address of the client a request is from (docs/security.md#the-client-behind-cloudfront): the viewer's
 * address CloudFront saw (`CloudFront-Viewer-Address`) on a request that came through the front, else the
 * address API Gateway saw. A request came through the front only if the front is deployed (`edgeSecret` set) and
 * the request carries its secret: a client that calls API Gateway's own address directly can send any
 * `CloudFront-Viewer-Address` it likes, and is known by its own address whatever it sends.
 */
export function clientAddress(event: HtmlEvent, edgeSecret: string | undefined): string {
  const direct = event.requestContext.http.sourceIp;
  const sent = event.headers[EDGE_SECRET_HEADER];
  // Compared as digests, in constant time: the comparison tells nothing of the secret, whatever its length.
  if (!edgeSecret || sent === undefined || !timingSafeEqual(digest(sent), digest(edgeSecret))) return direct;
  return viewerAddress(event.headers['cloudfront-viewer-address']) ?? direct;
}

/**
 * The IP address of a `CloudFront-Viewer-Address` value, `address:port` (an IPv6 address unbracketed,
 * `2001:db8::1:443`; bracketed is read too); undefined for anything else, such as two values joined by a comma.
 */
export function viewerAddress(value: string | undefined): string | undefined {
  const colon = value?.lastIndexOf(':') ?? -1;
  if (value === undefined || colon < 0 || !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined;
  const address = value.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return isIP(address) ? address : undefined;
}
