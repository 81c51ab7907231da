import encodeQR from 'qr';
import type { HtmlResult } from '../html-handler.ts';

/**
 * The QR code of a checkout URL, as SVG (docs/checkout.md#qr-codes). Medium error correction (15 %) survives a
 * smudged print; the four-module quiet zone is the one ISO/IEC 18004 asks for. The image is a pure function of
 * the URL, so shared caches may keep it; it carries no script and no external reference.
 */
export function qrCodeSvg(url: string, omitBody: boolean): HtmlResult {
  const svg = encodeQR(url, 'svg', { ecc: 'medium', border: 4 }).replace(
    '<svg ',
    '<svg role="img" aria-label="QR code of the payment link" ',
  );
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      // An SVG opened on its own is a document: it may run nothing and load nothing.
      'Content-Security-Policy': "default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Cache-Control': 'public, max-age=86400, immutable',
    },
    body: omitBody ? '' : svg,
  };
}
