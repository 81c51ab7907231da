import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectChromium } from '../../../../../test/support/browser.ts';
import { createLink } from '../../../../../test/support/checkout-helpers.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { CHECKOUT_FAKE, type FakeCheckout } from './fake.ts';

const FAKES = { checkout: CHECKOUT_FAKE };

/**
 * A buyer in Chromium paying through a Checkout.com connection: our checkout page forwards them to Checkout.com's
 * (fake) hosted page, they pay, and Checkout.com sends them back to us, where the authorization is captured before
 * they go on (docs/orchestration.md#deferred-capture).
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let fake: FakeCheckout;
let acme: IssuedApiKey;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [psps, browser] = await Promise.all([startPspStack({ fakes: FAKES }), connectChromium()]);
  ({ stack, checkout: fake } = psps);
  acme = await stack.issueKey('ckobrowser', 'test');
  await psps.connect('ckobrowser', 'checkout');
});
afterAll(async () => {
  await browser?.close();
  await psps?.stop();
});

beforeEach(async () => {
  // The fake serves its page over TLS with a certificate of its own, as it serves its API.
  context = await browser.newContext({ ignoreHTTPSErrors: true });
  page = await context.newPage();
});
afterEach(() => context.close());

const statusOf = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: acme.api_key })).body.status;

describe('a buyer paying through Checkout.com in Chromium', () => {
  it('is forwarded to the Checkout.com page, pays, comes back to our page, and the link reads paid', async () => {
    const link = await createLink(stack, acme.api_key);
    await page.goto(link.checkout_url);
    await page.waitForURL(`${fake.url}/link/**`);
    expect(await page.textContent('h1')).toBe('Pay 10.50 EUR');

    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(new RegExp(`${link.checkout_url}/complete`));
    expect(await page.textContent('h1')).toBe('Payment received');
    expect(await statusOf(link.id)).toBe('paid');
    const [payment] = [...fake.payments.values()].filter(
      (candidate) => candidate.link.metadata?.link_id === link.id,
    );
    expect(payment?.status).toBe('Captured');
  });

  it('lands on the link’s redirect_url after the capture when it has one', async () => {
    const link = await createLink(stack, acme.api_key, { redirect_url: 'https://shop.example/thanks' });
    await page.route('https://shop.example/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Shop</title><h1>Thanks</h1>' }),
    );
    await page.goto(link.checkout_url);
    await page.waitForURL(`${fake.url}/link/**`);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL('https://shop.example/thanks');
    expect(await page.textContent('h1')).toBe('Thanks');
    expect(await statusOf(link.id)).toBe('paid');
  });
});
