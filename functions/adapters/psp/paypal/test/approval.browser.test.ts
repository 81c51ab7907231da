import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectChromium } from '../../../../../test/support/browser.ts';
import { createLink } from '../../../../../test/support/checkout-helpers.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { type FakePaypal, PAYPAL_FAKE } from './fake.ts';

const FAKES = { paypal: PAYPAL_FAKE };

/**
 * A buyer in Chromium pays through PayPal's (fake) approval page and comes back: PayPal calls our webhook as it
 * does (CHECKOUT.ORDER.APPROVED, then PAYMENT.CAPTURE.COMPLETED) while the buyer's return captures, and the
 * order is captured once (docs/orchestration.md#deferred-capture).
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let paypal: FakePaypal;
let acme: IssuedApiKey;
let connection: PspConnection;
let browser: Browser;
let page: Page;
let shop: Server;
let shopBase: string;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, paypal } = psps);
  browser = await connectChromium();
  acme = await stack.issueKey('acme-paypal', 'test');
  connection = await psps.connect('acme-paypal', 'paypal');
  paypal.notify = async (delivery) => {
    await stack.request('POST', `/psp/paypal/notifications/${connection.id}`, {
      rawBody: delivery.body,
      headers: { 'content-type': 'application/json', ...delivery.headers },
    });
  };
  shop = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end('<!doctype html><title>Shop</title><h1>Thanks for your order</h1>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopBase = `http://localhost:${(shop.address() as AddressInfo).port}`;
});
afterAll(async () => {
  shop?.closeAllConnections();
  await new Promise<void>((resolve) => shop?.close(() => resolve()));
  await browser?.close();
  await psps?.stop();
});
beforeEach(async () => {
  page = await browser.newPage();
});
afterEach(() => page.close());

const statusOf = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: acme.api_key })).body.status;

describe('a buyer in Chromium paying with PayPal', () => {
  it('approves on PayPal’s page, comes back through our return, lands on redirect_url, and the link is paid', async () => {
    const link = await createLink(stack, acme.api_key, { redirect_url: `${shopBase}/thanks` });
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/checkoutnow\?token=/);
    expect(await page.textContent('#amount')).toBe('10.50 EUR');
    const orderId = new URL(page.url()).searchParams.get('token') as string;

    await page.getByRole('button', { name: 'Pay Now' }).click();
    await page.waitForURL(`${shopBase}/thanks`);
    expect(await page.textContent('h1')).toBe('Thanks for your order');
    expect(await statusOf(link.id)).toBe('paid');
    expect(paypal.captures.get(orderId)).toBe(1);
  });

  it('lands on our "payment received" page when the link has no redirect_url', async () => {
    const link = await createLink(stack, acme.api_key);
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/checkoutnow\?token=/);
    await page.getByRole('button', { name: 'Pay Now' }).click();
    await page.waitForURL(new RegExp(`${link.checkout_url}/complete`));
    expect(await page.textContent('h1')).toBe('Payment received');
    expect(await statusOf(link.id)).toBe('paid');
  });

  it('comes back to our page after Cancel, with the link still open and nothing captured', async () => {
    const link = await createLink(stack, acme.api_key);
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/checkoutnow\?token=/);
    const orderId = new URL(page.url()).searchParams.get('token') as string;
    await page.getByRole('link', { name: 'Cancel and return' }).click();
    await page.getByRole('heading', { name: 'Payment not completed' }).waitFor();
    expect(await statusOf(link.id)).toBe('open');
    expect(paypal.captures.get(orderId)).toBeUndefined();
  });
});
