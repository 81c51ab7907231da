import { describe, expect, it } from 'vitest';
import { clientAddress, EDGE_SECRET_HEADER, viewerAddress } from '../../functions/http/client-address.ts';
import type { HtmlEvent } from '../../functions/http/html-handler.ts';

const SECRET = 's'.repeat(64);
const CLOUDFRONT = '130.176.96.72';

const event = (headers: Record<string, string>) =>
  ({ headers, requestContext: { http: { sourceIp: CLOUDFRONT } } }) as unknown as HtmlEvent;

describe('the client of a request', () => {
  it('is the viewer CloudFront saw, on a request carrying the front’s secret', () => {
    const through = event({
      [EDGE_SECRET_HEADER]: SECRET,
      'cloudfront-viewer-address': '198.51.100.10:46532',
    });

    expect(clientAddress(through, SECRET)).toBe('198.51.100.10');
  });

  it('is the address API Gateway saw without the front, or without its secret, whatever the request says', () => {
    const spoofed = { 'cloudfront-viewer-address': '198.51.100.10:46532' };

    expect(clientAddress(event({ ...spoofed, [EDGE_SECRET_HEADER]: SECRET }), undefined)).toBe(CLOUDFRONT);
    expect(clientAddress(event(spoofed), SECRET)).toBe(CLOUDFRONT);
    expect(clientAddress(event({ ...spoofed, [EDGE_SECRET_HEADER]: 'guessed' }), SECRET)).toBe(CLOUDFRONT);
    expect(clientAddress(event({ ...spoofed, [EDGE_SECRET_HEADER]: `${SECRET}x` }), SECRET)).toBe(CLOUDFRONT);
  });

  it('is the address API Gateway saw when the viewer address cannot be read', () => {
    const through = (value: string) =>
      event({ [EDGE_SECRET_HEADER]: SECRET, 'cloudfront-viewer-address': value });

    expect(clientAddress(event({ [EDGE_SECRET_HEADER]: SECRET }), SECRET)).toBe(CLOUDFRONT);
    expect(clientAddress(through('198.51.100.10:1, 203.0.113.9:2'), SECRET)).toBe(CLOUDFRONT);
  });
});

describe('a CloudFront-Viewer-Address value', () => {
  it('gives its IPv4 or IPv6 address without the port, IPv6 unbracketed as CloudFront sends it or bracketed', () => {
    expect(viewerAddress('198.51.100.10:46532')).toBe('198.51.100.10');
    expect(viewerAddress('2001:db8::8a2e:370:7334:46532')).toBe('2001:db8::8a2e:370:7334');
    expect(viewerAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
  });

  it('gives nothing for what is not address:port', () => {
    for (const value of [
      undefined,
      '',
      '198.51.100.10',
      '198.51.100.10:',
      'host.example:443',
      '1.2.3.4:5, 6.7.8.9:1',
    ]) {
      expect(viewerAddress(value)).toBeUndefined();
    }
  });
});
