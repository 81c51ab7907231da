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

/** Intl separates the symbol and the number with a no-break space. */
const text = async (selector: string) => (await page.textContent(selector))?.replaceAll('\u00a0', ' ');

describe('a German buyer choosing the amount in Chromium', () => {
  beforeEach(async () => {
    context = await browser.newContext({ locale: 'de-DE' });
    page = await context.newPage();
  });

  it('is refused an amount out of range with a clear German message, then pays the amount typed', async () => {
    const link = await createLink(stack, acme.api_key, {
      amount: undefined,
      amount_range: { currency: 'EUR', minimum: '5.00', maximum: '500.00', suggested: '25.00' },
      description: 'Spende',
    });
    await page.goto(link.checkout_url);
    const field = page.getByLabel('Zu zahlender Betrag (EUR)');
    expect(await field.inputValue()).toBe('25,00');
    expect(await text('#amount-hint')).toBe('Zwischen 5,00 € und 500,00 €.');
    expect(await axeViolations(page)).toEqual([]);

    await field.fill('4,99');
    const refused = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Weiter zur Zahlung' }).click();
    expect((await refused).status()).toBe(422);
    await page.locator('#amount-error').waitFor();
    expect(await text('#amount-error')).toBe('Geben Sie einen Betrag zwischen 5,00 € und 500,00 € ein.');
    expect(await field.inputValue()).toBe('4,99');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await page.title()).toBe('Fehler: Zahlungsanforderung');
    expect(await axeViolations(page)).toEqual([]);

    await field.fill('12,50');
    await page.getByRole('button', { name: 'Weiter zur Zahlung' }).click();
    await page.waitForURL(/\/sandbox\/checkout\/sbcs_/);
    expect(await text('h1')).toContain('12,50 €');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(/shop\.example|\/complete$/);

    const paid = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(paid.body).toMatchObject({
      status: 'paid',
      amount: null,
      payment: { amount: { value: '12.50', currency: 'EUR' } },
    });
  });

  it('comes back from the PSP to the same form at the amount chosen, and may change it', async () => {
    const link = await createLink(stack, acme.api_key, {
      amount: undefined,
      amount_range: { currency: 'EUR', minimum: '1', maximum: '100' },
    });
    await page.goto(link.checkout_url);
    await page.getByLabel('Zu zahlender Betrag (EUR)').fill('7');
    await page.getByRole('button', { name: 'Weiter zur Zahlung' }).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('link', { name: 'Zurück' }).click();

    await page.getByRole('heading', { name: 'Zahlung nicht abgeschlossen' }).waitFor();
    expect(await page.getByLabel('Zu zahlender Betrag (EUR)').inputValue()).toBe('7,00');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Zu zahlender Betrag (EUR)').fill('9,90');
    await page.getByRole('button', { name: 'Erneut versuchen' }).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    expect(await text('h1')).toContain('9,90 €');
  });
});
