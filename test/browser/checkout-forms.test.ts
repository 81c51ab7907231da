import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { axeViolations } from '../support/axe.ts';
import { csvRecords } from '../support/books.ts';
import { type BrowserStack, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import type { TestStack } from '../support/test-stack.ts';

/**
 * A buyer fills the "before you pay" form in Chromium (docs/checkout.md#buyer-details, #custom-fields,
 * #quantities), is told what to fix, pays through the sandbox PSP, and the merchant reads the answers back.
 * With `UPDATE_SCREENSHOTS=1` the form's screens are written under docs/images/ for docs/checkout.md.
 */
let fixture: BrowserStack;
let stack: TestStack;
let acme: IssuedApiKey;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  fixture = await startBrowserStack();
  ({ stack, acme, browser } = fixture);
});
afterAll(() => fixture?.stop());
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function buyerPage(locale: string): Promise<Page> {
  const context = await browser.newContext({ locale, viewport: { width: 480, height: 900 } });
  contexts.push(context);
  return context.newPage();
}

const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'images');
async function screenshot(page: Page, name: string) {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true });
}

const formLink = (body: Record<string, unknown> = {}) =>
  createLink(stack, acme.api_key, {
    amount: undefined,
    description: 'Dinner for the club',
    line_items: [
      {
        name: 'Dinner ticket',
        quantity: 1,
        unit_amount: { value: '25.00', currency: 'EUR' },
        adjustable_quantity: { enabled: true, minimum: 1, maximum: 8 },
      },
    ],
    collect: { email: 'required', phone: 'optional', shipping_address: { countries: ['NL', 'BE', 'DE'] } },
    custom_fields: [
      { key: 'table', label: 'Table number', type: 'numeric', numeric: { maximum_length: 3 } },
      {
        key: 'menu',
        label: 'Menu',
        type: 'dropdown',
        dropdown: {
          options: [
            { label: 'Vegetarian', value: 'veg' },
            { label: 'Fish', value: 'fish' },
          ],
        },
      },
    ],
    ...body,
  });

/** Fills the form as a buyer does, by the labels they read. */
async function fill(
  page: Page,
  answers: { quantity: string; table: string; email: string; phone: string; name: string },
) {
  await page.getByLabel('Quantity of Dinner ticket').fill(answers.quantity);
  await page.getByLabel('Table number').fill(answers.table);
  await page.getByLabel('Menu').selectOption({ label: 'Fish' });
  await page.getByLabel('E-mail address').fill(answers.email);
  await page.getByLabel('Phone number').fill(answers.phone);
  await page.getByLabel('Full name').fill(answers.name);
  await page.getByLabel('Street and number').fill('Keizersgracht 1');
  await page.getByLabel('City').fill('Amsterdam');
  await page.getByLabel('Postal code').fill('1015 CJ');
  await page.getByLabel('Country').selectOption({ label: 'Netherlands' });
}

async function payOnSandbox(page: Page) {
  await page.waitForURL(/\/sandbox\/checkout\/sbcs_/);
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await page.waitForURL(/shop\.example|\/complete$/);
}

describe('a buyer filling the form in Chromium', () => {
  it('is told what to fix at each field, then pays the total of the quantities picked', async () => {
    const link = await formLink();
    const page = await buyerPage('en-GB');
    await page.goto(link.checkout_url);
    expect(await page.title()).toBe('Before you pay');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'checkout-form.png');

    await fill(page, { quantity: '9', table: '12a', email: 'ada@', phone: '12', name: 'Ada Lovelace' });
    const refused = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    expect((await refused).status()).toBe(422);
    await page.locator('#email-error').waitFor();
    expect(await page.title()).toBe('Error: Before you pay');
    expect(await page.textContent('#email-error')).toBe('Enter an e-mail address such as name@example.com.');
    expect(await page.getByLabel('E-mail address').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Table number').inputValue()).toBe('12a');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'checkout-form-errors.png');

    await fill(page, {
      quantity: '3',
      table: '12',
      email: 'ada@example.com',
      phone: '06 12345678',
      name: 'Ada Lovelace',
    });
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/sandbox\/checkout\/sbcs_/);
    expect(await page.textContent('h1')).toContain('75.00');
    await payOnSandbox(page);

    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: acme.api_key,
    });
    expect(payments.body.data[0]).toMatchObject({
      status: 'succeeded',
      amount: { value: '75.00', currency: 'EUR' },
      quantities: [3],
      custom_fields: [
        { key: 'table', value: '12' },
        { key: 'menu', value: 'fish' },
      ],
      buyer: {
        email: 'ada@example.com',
        phone: '+31612345678',
        name: 'Ada Lovelace',
        shipping_address: {
          line1: 'Keizersgracht 1',
          city: 'Amsterdam',
          postal_code: '1015 CJ',
          country: 'NL',
        },
      },
    });
  });

  it('lets two buyers pay one reusable link with their own answers and details', async () => {
    const link = await formLink({ reusable: true });
    const first = await buyerPage('en-US');
    const second = await buyerPage('en-US');
    // Each buyer comes with the merchant's reference of them on the link's address (docs/api.md#buyer-references).
    await first.goto(`${link.checkout_url}?client_reference_id=member-ada`);
    await second.goto(`${link.checkout_url}?client_reference_id=member-grace`);
    await fill(first, {
      quantity: '2',
      table: '4',
      email: 'ada@example.com',
      phone: '',
      name: 'Ada Lovelace',
    });
    await fill(second, {
      quantity: '5',
      table: '9',
      email: 'grace@example.org',
      phone: '+49 30 901820',
      name: 'Grace Hopper',
    });
    await first.getByRole('button', { name: 'Continue to payment' }).click();
    await second.getByRole('button', { name: 'Continue to payment' }).click();
    await payOnSandbox(first);
    await payOnSandbox(second);

    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: acme.api_key,
    });
    const summary = payments.body.data
      .map(
        (payment: {
          status: string;
          amount: { value: string };
          quantities: number[];
          buyer: { email: string; phone?: string };
          custom_fields: { value: string }[];
        }) => [
          payment.status,
          payment.amount.value,
          payment.quantities,
          payment.buyer.email,
          payment.buyer.phone ?? null,
          payment.custom_fields[0]?.value,
        ],
      )
      .sort();
    expect(summary).toEqual([
      ['succeeded', '125.00', [5], 'grace@example.org', '+4930901820', '9'],
      ['succeeded', '50.00', [2], 'ada@example.com', null, '4'],
    ]);

    // The account's books find each buyer by their reference, and the CSV export has both with their details.
    const ofAda = await stack.request('GET', '/v1/payments?client_reference_id=member-ada', {
      key: acme.api_key,
    });
    expect(
      ofAda.body.data.map((payment: { link_id: string; buyer: { email: string } }) => [
        payment.link_id,
        payment.buyer.email,
      ]),
    ).toEqual([[link.id, 'ada@example.com']]);
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString();
    const exported = await stack.request(
      'GET',
      `/v1/payments?link_id=${link.id}&created[gte]=${day(-1)}&created[lt]=${day(1)}`,
      { key: acme.api_key, headers: { accept: 'text/csv' } },
    );
    expect(exported.status).toBe(200);
    const rows = csvRecords(exported.body).map((row) => [
      row.client_reference_id,
      row.buyer_email,
      row.amount,
    ]);
    expect(rows.sort()).toEqual([
      ['member-ada', 'ada@example.com', '50.00'],
      ['member-grace', 'grace@example.org', '125.00'],
    ]);
  });
});

describe('the form in every language', () => {
  it.each(['en', 'nl', 'de', 'fr', 'es'])(
    'has no axe violations in %s, asked and refused',
    async (locale) => {
      const link = await formLink({
        collect: {
          email: 'required',
          phone: 'optional',
          billing_address: 'required',
          shipping_address: { countries: ['NL', 'BE'] },
        },
      });
      const page = await buyerPage(locale);
      await page.goto(link.checkout_url);
      expect(await page.locator('html').getAttribute('lang')).toBe(locale);
      expect(await axeViolations(page)).toEqual([]);
      await page.locator('button[type=submit]').click();
      await page.locator('#form-error').waitFor();
      expect(await page.locator('[aria-invalid=true]').count()).toBeGreaterThan(3);
      expect(await axeViolations(page)).toEqual([]);
      if (locale === 'nl') await screenshot(page, 'checkout-form-nl-errors.png');
    },
  );
});
