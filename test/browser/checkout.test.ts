import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { type BrowserStack, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { LOAD_ALLOWANCE_MS } from '../support/eventually.ts';
import type { TestStack } from '../support/test-stack.ts';

let fixture: BrowserStack;
let stack: TestStack;
let acme: IssuedApiKey;
let browser: Browser;
let shop: Server;
/** The merchant's site: another origin (localhost, not 127.0.0.1), with a thank-you page and a framing page. */
let shopBase: string;
let page: Page;
let dialogs: string[];

beforeAll(async () => {
  fixture = await startBrowserStack();
  ({ stack, acme, browser } = fixture);
  shop = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shop');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/frame') {
      const target = url.searchParams.get('src') ?? '';
      response.end(`<!doctype html><title>Shop</title><iframe id="checkout" src="${target}"></iframe>`);
    } else {
      response.end('<!doctype html><title>Shop</title><h1>Thanks for your order</h1>');
    }
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopBase = `http://localhost:${(shop.address() as AddressInfo).port}`;
  // One page for the file, not a browser context per test (about 0.25 CPU-s each, docs/testing.md#cpu-per-file):
  // no test depends on a fresh one. Each opens a link of its own with `goto`, the cookies the checkout sets are
  // scoped to their link's page, and no test reads history or storage.
  page = await browser.newPage();
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
});
afterAll(async () => {
  shop?.closeAllConnections();
  await new Promise<void>((resolve) => shop?.close(() => resolve()));
  await fixture?.stop();
});

beforeEach(() => {
  dialogs = [];
});

const statusOf = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: acme.api_key })).body.status;

describe('a buyer in Chromium', () => {
  it('is forwarded to the sandbox, pays with Pay, lands on redirect_url, and the link reads paid', async () => {
    const link = await createLink(stack, acme.api_key, { redirect_url: `${shopBase}/thanks` });
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\/sbcs_/);
    await expect(page.getByText('€10.50').count()).resolves.toBeGreaterThan(0);
    await expect(page.getByText('Order 1001').count()).resolves.toBe(1);

    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${shopBase}/thanks`);
    expect(await page.textContent('h1')).toBe('Thanks for your order');
    expect(await statusOf(link.id)).toBe('paid');
  });

  it('lands on our neutral "payment received" page when the link has no redirect_url', async () => {
    const link = await createLink(stack, acme.api_key);
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${link.checkout_url}/complete`);
    expect(await page.textContent('h1')).toBe('Payment received');
    expect(await statusOf(link.id)).toBe('paid');
  });

  it('keeps the link open after Decline and offers another attempt from our page', async () => {
    const link = await createLink(stack, acme.api_key, { redirect_url: `${shopBase}/thanks` });
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\//);
    const declined = page.url();
    await page.getByRole('button', { name: 'Decline', exact: true }).click();
    await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
    expect(await statusOf(link.id)).toBe('open');

    await page.getByRole('link', { name: 'Back to the merchant' }).click();
    await page.getByRole('heading', { name: 'Payment not completed' }).waitFor();
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    expect(page.url()).not.toBe(declined);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${shopBase}/thanks`);
    expect(await statusOf(link.id)).toBe('paid');
  });

  it('shows a hostile description as text and runs nothing', async () => {
    const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const link = await createLink(stack, acme.api_key, { description: hostile });
    await page.goto(`${link.checkout_url}?canceled=1`);
    expect(await page.getByText(hostile, { exact: true }).count()).toBe(1);
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    expect(await page.getByText(hostile, { exact: true }).count()).toBe(1);
    expect(await page.locator('img, script').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('receives the security headers with the page', async () => {
    const link = await createLink(stack, acme.api_key);
    const response = await page.goto(`${link.checkout_url}?canceled=1`);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['cache-control']).toBe('no-store');
  });

  it('refuses to render the checkout inside a frame on another origin', async () => {
    const link = await createLink(stack, acme.api_key);
    const blocked = page.waitForEvent('response', (response) => response.url() === link.checkout_url);
    await page.goto(`${shopBase}/frame?src=${encodeURIComponent(link.checkout_url)}`);
    await blocked;
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    await page.locator('#checkout').waitFor({ state: 'attached' });
    expect(frame).toBeDefined();
    // A refused frame is left on Chromium's error page: none of our page's content renders in it.
    await expect.poll(() => frame?.url(), { timeout: LOAD_ALLOWANCE_MS }).toMatch(/^chrome-error:/);
    const rendered = await frame
      ?.locator('body')
      .textContent({ timeout: 2000 })
      .catch(() => '');
    expect(rendered ?? '').not.toContain('Continue to payment');
    expect(rendered ?? '').not.toContain('€10.50');
  });
});

describe('the run’s Chromium (test/support/chromium-server.ts)', () => {
  it('loads none of its own pages beside the tests’ (no prewarmed omnibox popup in each window)', async () => {
    await page.goto(`${shopBase}/thanks`);
    const session = await browser.newBrowserCDPSession();
    const { targetInfos } = await session.send('Target.getTargets');
    await session.detach();
    expect(targetInfos.map((target) => target.url).filter((url) => url.startsWith('chrome://'))).toEqual([]);
  });
});
