import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
