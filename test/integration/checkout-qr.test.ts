import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { decodeSvgQr } from '../support/qr-svg.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

describe('GET {checkout_base}/{id}/qr.svg', () => {
  it('is named by the link resource and is an SVG QR code that reads back as the checkout URL', async () => {
    const link = await createLink(stack, acme.api_key);
    expect(link.qr_code_url).toBe(`${link.checkout_url}/qr.svg`);

    const response = await fetch(link.qr_code_url);
    const svg = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(svg).not.toMatch(/<script|href=|on\w+=/i);
    expect(decodeSvgQr(svg)).toBe(link.checkout_url);
  });

  it('needs no API key and answers HEAD with the headers only', async () => {
    const link = await createLink(stack, acme.api_key);
    const response = await fetch(link.qr_code_url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  it('answers 404 for a path that is no payment link id', async () => {
    const response = await fetch(`${stack.checkoutBase}/pl_short/qr.svg`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
