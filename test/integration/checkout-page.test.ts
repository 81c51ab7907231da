import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { linkRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate, type PageResponse } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

function expectSecurityHeaders(page: PageResponse) {
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  const csp = String(page.headers['content-security-policy']);
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).toMatch(/frame-ancestors 'none'/);
  expect(csp).toMatch(/base-uri 'none'/);
  expect(csp).toMatch(/form-action /);
  expect(csp).not.toMatch(/script-src/);
  expect(page.headers['x-frame-options']).toBe('DENY');
  expect(page.headers['referrer-policy']).toBe('no-referrer');
  expect(page.headers['x-content-type-options']).toBe('nosniff');
  expect(page.headers['cache-control']).toBe('no-store');
}

async function setStored(id: string, mode: string, values: Record<string, unknown>) {
  const names = Object.keys(values);
  await documentClient().send(
    new UpdateCommand({
      TableName: stack.tableName,
      Key: keys.link(id, mode),
      UpdateExpression: `SET ${names.map((_name, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, values[name]])),
    }),
  );
}

describe('GET {checkout_base}/{id}', () => {
  it('forwards a buyer to a new sandbox session: meta refresh, a visible link, no script, the security headers', async () => {
    const link = await createLink(stack, acme.api_key);
    const page = await navigate(link.checkout_url);

    expect(page.status).toBe(200);
    expectSecurityHeaders(page);
    const session = (await storedLink(link.id)).psp_session;
    expect(session).toMatchObject({
      provider: 'sandbox',
      url: `${stack.baseUrl}/sandbox/checkout/${session?.id}`,
    });
    expect(page.text).toContain(`<meta http-equiv="refresh" content="0;url=${session?.url}">`);
    expect(page.text).toMatch(new RegExp(`<a class="button" href="${session?.url}">Continue to payment</a>`));
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toContain('€10.50');
    expect(page.headers['content-security-policy']).toMatch(new RegExp(`form-action ${stack.baseUrl}[;]`));
    expect(page.headers['strict-transport-security']).toBeUndefined();
  });

  it('reuses the session while it is valid and bumps the link version once', async () => {
    const link = await createLink(stack, acme.api_key);
    await navigate(link.checkout_url);
    const first = await storedLink(link.id);
    await navigate(link.checkout_url);
    const second = await storedLink(link.id);
    expect(second.psp_session).toEqual(first.psp_session);
    expect(first.version).toBe(2);
    expect(second.version).toBe(2);
  });

  it('creates a new session when the previous one lapsed but the link is still open', async () => {
    const link = await createLink(stack, acme.api_key);
    await navigate(link.checkout_url);
    const lapsed = (await storedLink(link.id)).psp_session!;
    await setStored(link.id, 'test', {
      psp_session: { ...lapsed, expires_at: new Date(Date.now() - 1000).toISOString() },
    });
    const page = await navigate(link.checkout_url);
    const renewed = (await storedLink(link.id)).psp_session!;
    expect(renewed.id).not.toBe(lapsed.id);
    expect(page.text).toContain(renewed.url);
  });

  it('gives concurrent buyers one stored session, whichever write wins', async () => {
    const link = await createLink(stack, acme.api_key);
    const pages = await Promise.all(Array.from({ length: 5 }, () => navigate(link.checkout_url)));
    const stored = (await storedLink(link.id)).psp_session!;
    expect(pages.every((page) => page.status === 200)).toBe(true);
    expect(pages.some((page) => page.text.includes(stored.url))).toBe(true);
  });

  it('creates no PSP session for HEAD, link-preview bots, prefetches or non-navigation fetches', async () => {
    const link = await createLink(stack, acme.api_key);
    const previews = [
      httpRequest(link.checkout_url, { method: 'HEAD', headers: NAVIGATION_HEADERS }),
      httpRequest(link.checkout_url, {
        headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' },
      }),
      httpRequest(link.checkout_url, { headers: { 'user-agent': 'facebookexternalhit/1.1' } }),
      httpRequest(link.checkout_url, { headers: { 'user-agent': 'WhatsApp/2.23.20.0' } }),
      httpRequest(link.checkout_url, { headers: { ...NAVIGATION_HEADERS, 'sec-purpose': 'prefetch' } }),
      httpRequest(link.checkout_url, { headers: { ...NAVIGATION_HEADERS, purpose: 'prefetch' } }),
      httpRequest(link.checkout_url, {
        headers: { ...NAVIGATION_HEADERS, 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'iframe' },
      }),
    ];
    for (const page of await Promise.all(previews)) {
      expect(page.status).toBe(200);
      expectSecurityHeaders(page);
      expect(page.text).not.toContain('http-equiv="refresh"');
    }
    const stored = await storedLink(link.id);
    expect(stored.psp_session).toBeNull();
    expect(stored.version).toBe(1);
  });

  it('shows a paid link as already paid (200) without a session', async () => {
    const link = await createLink(stack, acme.api_key);
    await setStored(link.id, 'test', { status: 'paid', paid_at: new Date().toISOString() });
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expectSecurityHeaders(page);
    expect(page.text).toContain('This link has already been paid');
    expect(page.text).not.toContain('http-equiv="refresh"');
  });

  it('answers 410 with an explanation for a canceled link and for one whose expires_at just passed', async () => {
    const canceledLink = await createLink(stack, acme.api_key);
    await linkRepository().commit(cancel(await storedLink(canceledLink.id), new Date())!);
    const canceled = await navigate(canceledLink.checkout_url);
    expect(canceled.status).toBe(410);
    expectSecurityHeaders(canceled);
    expect(canceled.text).toContain('This payment link was canceled');

    const expiringLink = await createLink(stack, acme.api_key);
    await setStored(expiringLink.id, 'test', { expires_at: new Date(Date.now() - 1000).toISOString() });
    const expired = await navigate(expiringLink.checkout_url);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('This payment link has expired');
    expect((await storedLink(expiringLink.id)).psp_session).toBeNull();
  });

  it('ends the sandbox session when the merchant cancels, so the buyer can no longer pay on it', async () => {
    const link = await createLink(stack, acme.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    expect((await sandboxSessionStore().get(session?.id as string))?.status).toBe('open');

    const canceled = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, {
      key: acme.api_key,
    });
    expect(canceled.status).toBe(200);

    expect((await sandboxSessionStore().get(session?.id as string))?.status).toBe('expired');
    expect((await storedLink(link.id)).psp_session).toBeNull();
    const pay = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    expect(pay.status).toBe(200); // the sandbox page again, not the 303 to redirect_url of a payment
    expect(pay.text).toContain('This checkout session has expired');
    expect((await storedLink(link.id)).status).toBe('canceled');
  });

  it('answers 404 with a page for an unknown or malformed id', async () => {
    for (const id of ['pl_000000000000000000000000', 'nope', '%3Cscript%3E']) {
      const page = await navigate(`${stack.checkoutBase}/${id}`);
      expect(page.status).toBe(404);
      expectSecurityHeaders(page);
      expect(page.text).toContain('Payment link not found');
      expect(page.text).not.toContain('<script>');
    }
  });

  it('escapes merchant text', async () => {
    const link = await createLink(stack, acme.api_key, {
      description: '<img src=x onerror=alert(1)><script>alert(2)</script>',
    });
    const page = await navigate(link.checkout_url);
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(page.text).not.toMatch(/<img|<script/);
  });

  it('finds a live-mode link by id too, and says the merchant has not finished setup (503) while no PSP serves live mode', async () => {
    const live = await stack.issueKey('acme', 'live');
    const link = await createLink(stack, live.api_key);
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(503);
    expectSecurityHeaders(page);
    expect(page.text).toContain('has not finished setting up payments');
    expect((await storedLink(link.id)).psp_session).toBeNull();
  });

  it('sends HSTS when served over https', async () => {
    const link = await createLink(stack, acme.api_key);
    const page = await httpRequest(link.checkout_url, {
      headers: { ...NAVIGATION_HEADERS, 'x-forwarded-proto': 'https' },
    });
    expect(page.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  });

  it('does not forward again at once when the buyer came back from the PSP without paying', async () => {
    const link = await createLink(stack, acme.api_key);
    const page = await navigate(`${link.checkout_url}?canceled=1`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Payment not completed');
    expect(page.text).not.toContain('http-equiv="refresh"');
    expect(page.text).toContain((await storedLink(link.id)).psp_session!.url);
  });
});
