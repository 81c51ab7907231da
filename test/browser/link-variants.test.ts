import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { axeViolations } from '../support/axe.ts';
import { type BrowserStack, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import type { TestStack } from '../support/test-stack.ts';

let fixture: BrowserStack;
let stack: TestStack;
let acme: IssuedApiKey;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  fixture = await startBrowserStack();
  ({ stack, acme, browser } = fixture);
});
afterAll(() => fixture?.stop());
afterEach(() => context.close());

const statusOf = async (id: string) =>
  (await stack.request('GET', `/v1/payment-links/${id}`, { key: acme.api_key })).body.status;
/** Intl separates the symbol and the number with a no-break space. */
const text = async (selector: string) => (await page.textContent(selector))?.replaceAll('\u00a0', ' ');

describe('a Dutch buyer in Chromium', () => {
  beforeEach(async () => {
    context = await browser.newContext({ locale: 'nl-NL' });
    page = await context.newPage();
  });

  it('reads our pages in Dutch with € 10,00, with no accessibility violation, and pays', async () => {
    const link = await createLink(stack, acme.api_key, { amount: { value: '10.00', currency: 'EUR' } });
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\//);
    // The sandbox PSP's page speaks Dutch too; its buttons keep the names Pay and Decline.
    expect(await text('h1')).toBe('€ 10,00 betalen');
    expect(await page.getAttribute('html', 'lang')).toBe('nl-NL');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Terug' }).click();

    await page.getByRole('heading', { name: 'Betaling niet voltooid' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('nl-NL');
    expect(await text('.amount')).toBe('€ 10,00');
    expect(await page.getByRole('link', { name: 'Opnieuw proberen' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Opnieuw proberen' }).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${link.checkout_url}/complete`);
    expect(await page.textContent('h1')).toBe('Betaling ontvangen');
    expect(await axeViolations(page)).toEqual([]);
    expect(await statusOf(link.id)).toBe('paid');
  });

  it("is shown the link's own locale over the browser's language", async () => {
    const link = await createLink(stack, acme.api_key, { locale: 'de' });
    await page.goto(`${link.checkout_url}?canceled=1`);
    expect(await page.textContent('h1')).toBe('Zahlung nicht abgeschlossen');
    expect(await text('.amount')).toBe('10,50 €');
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe("a merchant's branding in Chromium", () => {
  beforeEach(async () => {
    context = await browser.newContext({ locale: 'fr-FR' });
    page = await context.newPage();
  });

  it('applies the accent colour under the strict CSP, names the merchant and passes axe', async () => {
    const key = (await stack.issueKey('branded', 'test')).api_key;
    const put = await stack.request('PUT', '/v1/checkout-settings', {
      key,
      body: {
        display_name: 'Boulangerie Dupont',
        accent_color: '#7a1f1f',
        support_email: 'aide@dupont.example',
      },
    });
    expect(put.status).toBe(200);
    const link = await createLink(stack, key);
    await page.goto(`${link.checkout_url}?canceled=1`);

    expect(await page.textContent('.brand')).toBe('Boulangerie Dupont');
    expect(await page.textContent('h1')).toBe('Paiement non abouti');
    const background = await page.$eval(
      'a.button',
      (element) =>
        (
          globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }
        ).getComputedStyle(element).backgroundColor,
    );
    expect(background).toBe('rgb(122, 31, 31)');
    expect(await page.getByRole('link', { name: 'aide@dupont.example' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
  });
});
