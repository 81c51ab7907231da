import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSettingsRepository } from '../../functions/dependencies.ts';
import { noSettings } from '../../functions/domain/checkout-settings.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let test: IssuedApiKey;
let live: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  test = await stack.issueKey('brand', 'test');
  live = await stack.issueKey('brand', 'live');
});
afterAll(() => stack.stop());

const brand = {
  display_name: 'Koffie & Co <Utrecht>',
  logo_url: 'https://cdn.koffie.example/logo.png',
  accent_color: '#0B5A3C',
  support_email: 'help@koffie.example',
};
const pointers = (response: { body: { errors?: { pointer: string }[] } }) =>
  (response.body.errors ?? []).map((error) => error.pointer);

/** The policy's directives, by name, each with its sources (how a browser splits the header). */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name as string, sources]),
  );
}

/**
 * Whether a browser loads the image at `address` under the policy's `img-src`, by CSP 3's rules for the host
 * sources our pages use: a source that is not a valid expression is ignored; scheme, host and port must be the
 * URL's; a path ending in `/` matches below it, any other path the URL's exactly, both percent-decoded, and
 * the URL's query plays no part.
 */
function imgSrcAllows(csp: string, address: string): boolean {
  const url = new URL(address);
  const decoded = (path: string) => path.split('/').map((piece) => decodeURIComponent(piece));
  return (directives(csp).get('img-src') ?? []).some((source) => {
    const match =
      /^(https?):\/\/([A-Za-z0-9.-]+)(?::(\d+))?((?:\/(?:[A-Za-z0-9\-._~!$&'()*+=:@]|%[0-9A-Fa-f]{2})*)*)$/.exec(
        source,
      );
    if (!match) return false;
    const [, scheme, host, port, path] = match as unknown as [string, string, string, string?, string?];
    const origin = `${scheme}:` === url.protocol && host.toLowerCase() === url.hostname;
    if (!origin || (port ?? '') !== url.port) return false;
    if (!path || path === '/') return true;
    const [expected, actual] = [decoded(path), decoded(url.pathname)];
    return path.endsWith('/')
      ? expected.slice(0, -1).every((piece, index) => piece === actual[index])
      : expected.length === actual.length && expected.every((piece, index) => piece === actual[index]);
  });
}

describe('GET and PUT /v1/checkout-settings', () => {
  it('starts with every field null, stores a branding per mode and returns it', async () => {
    const before = await stack.request('GET', '/v1/checkout-settings', { key: test.api_key });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      object: 'checkout_settings',
      mode: 'test',
      display_name: null,
      logo_url: null,
    });
    expectDocumented('get', '/v1/checkout-settings', before);

    const put = await stack.request('PUT', '/v1/checkout-settings', { key: test.api_key, body: brand });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ ...brand, accent_color: '#0b5a3c', mode: 'test' });
    expectDocumented('put', '/v1/checkout-settings', put);
    expect((await stack.request('GET', '/v1/checkout-settings', { key: test.api_key })).body).toEqual(
      put.body,
    );
    expect(
      (await stack.request('GET', '/v1/checkout-settings', { key: live.api_key })).body.display_name,
    ).toBeNull();
  });

  it.each([
    [{ logo_url: 'http://cdn.koffie.example/logo.png' }, '/logo_url'],
    [{ logo_url: 'https://127.0.0.1/logo.png' }, '/logo_url'],
    [{ logo_url: 'https://user:pw@cdn.koffie.example/logo.png' }, '/logo_url'],
    [{ logo_url: 'https://cdn.koffie.example/logo.png;script-src' }, '/logo_url'],
    [{ logo_url: "https://cdn.koffie.example/logo.png;script-src%20'unsafe-inline'" }, '/logo_url'],
    [{ logo_url: 'https://cdn.koffie.example/logo.png,script-src' }, '/logo_url'],
    [{ logo_url: 'https://*.koffie.example/logo.png' }, '/logo_url'],
    [{ accent_color: '#ffff00' }, '/accent_color'],
    [{ accent_color: 'green' }, '/accent_color'],
    [{ support_email: 'not an address' }, '/support_email'],
    [{ display_name: '' }, '/display_name'],
    [{ colour: '#000000' }, '/colour'],
  ])('refuses %j with 422 at %s', async (body, pointer) => {
    const response = await stack.request('PUT', '/v1/checkout-settings', { key: test.api_key, body });
    expect(response.status).toBe(422);
    expect(pointers(response)).toEqual([pointer]);
  });

  it('brands every checkout page: name, logo allowed by the CSP alone, accent by its hash, support address', async () => {
    await stack.request('PUT', '/v1/checkout-settings', { key: test.api_key, body: brand });
    const link = await createLink(stack, test.api_key);
    for (const address of [`${link.checkout_url}?canceled=1`, `${link.checkout_url}/complete`]) {
      const page = await navigate(address);
      expect(page.text).toContain('<p class="brand">Koffie &amp; Co &lt;Utrecht&gt;</p>');
      expect(page.text).toContain('<img src="https://cdn.koffie.example/logo.png" alt="">');
      expect(page.text).toContain('<a href="mailto:help@koffie.example">help@koffie.example</a>');
      expect(page.text).toContain('<style>:root{--accent:#0b5a3c}</style>');
      const csp = String(page.headers['content-security-policy']);
      const accentHash = createHash('sha256').update(':root{--accent:#0b5a3c}').digest('base64');
      expect(csp).toContain(`'sha256-${accentHash}'`);
      expect(csp).toContain('img-src https://cdn.koffie.example/logo.png;');
      expect(csp).not.toMatch(/script-src|unsafe-inline/);
    }
    const liveLink = await createLink(stack, live.api_key, { redirect_url: 'https://shop.example/thanks' });
    const unbranded = await navigate(`${liveLink.checkout_url}/complete`);
    expect(unbranded.text).not.toContain('Koffie');
    expect(String(unbranded.headers['content-security-policy'])).not.toContain('img-src');
  });

  it('allows the logo by its origin and path, so a logo URL with a query loads, and no other image', async () => {
    const versioned = await stack.issueKey('brand-versioned', 'test');
    const logo = 'https://cdn.koffie.example/logo.png?v=2';
    const put = await stack.request('PUT', '/v1/checkout-settings', {
      key: versioned.api_key,
      body: { logo_url: logo },
    });
    expect(put.status).toBe(200);
    const page = await navigate(`${(await createLink(stack, versioned.api_key)).checkout_url}/complete`);
    expect(page.text).toContain(`<img src="${logo}"`);
    const csp = String(page.headers['content-security-policy']);
    expect(imgSrcAllows(csp, logo)).toBe(true);
    expect(imgSrcAllows(csp, 'https://cdn.koffie.example/other.png')).toBe(false);
    expect(imgSrcAllows(csp, 'https://tracker.example/logo.png?v=2')).toBe(false);
  });

  it('never lets a stored logo URL add a directive to the policy, and still allows that logo', async () => {
    // Settings stored before the API refused such a URL: written to the table as they were.
    const legacy = await stack.issueKey('brand-legacy', 'test');
    const logo = "https://cdn.koffie.example/logo.png;script-src 'unsafe-inline'";
    await checkoutSettingsRepository().put({
      ...noSettings('brand-legacy', 'test'),
      logo_url: logo,
      updated_at: new Date().toISOString(),
    });
    const page = await navigate(`${(await createLink(stack, legacy.api_key)).checkout_url}/complete`);
    const csp = String(page.headers['content-security-policy']);
    expect([...directives(csp).keys()]).toEqual([
      'default-src',
      'style-src',
      'img-src',
      'form-action',
      'frame-ancestors',
      'base-uri',
    ]);
    expect(directives(csp).get('img-src')).toHaveLength(1);
    expect([...directives(csp).values()].flat()).not.toContain("'unsafe-inline'");
    expect(imgSrcAllows(csp, logo)).toBe(true);
  });
});
