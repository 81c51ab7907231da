import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_LANGUAGES, type PageLanguage } from '../../functions/domain/locale.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';
import { axeViolations } from '../support/axe.ts';
import { seedPayment } from '../support/books.ts';
import { type BrowserStack, saveConsoleScreenshot, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { consoleSignInLink } from '../support/console.ts';

/**
 * The console's overview, API keys and languages in Chromium, axe on every page. With UPDATE_SCREENSHOTS=1 the
 * pages are saved to docs/console/ for docs/console.md.
 */
let fixture: BrowserStack;
/** A link of acme with a paid payment whose buyer is known, for its page and the erasure's confirmation. */
let linkId: string;
let paymentId: string;

beforeAll(async () => {
  fixture = await startBrowserStack();
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
  await Promise.all(
    [0, 0, 1, 3, 3, 3, 6, 9, 12].map((daysAgo, index) =>
      seedPayment('acme', {
        created_at: day(daysAgo),
        status: index % 4 === 3 ? 'failed' : 'succeeded',
        amount: { value: `${10 + index}.00`, currency: 'EUR' },
      }),
    ),
  );
  linkId = (await createLink(fixture.stack, fixture.acme.api_key, { collect: { email: 'required' } })).id;
  paymentId = (
    await seedPayment('acme', {
      created_at: day(0),
      link_id: linkId,
      amount: { value: '10.50', currency: 'EUR' },
      buyer: { email: 'ada.browser@example.com', name: 'Ada Browser' },
    })
  ).id;
});
afterAll(async () => {
  await fixture?.stop();
});

/** A browser whose language is `language`, signed in to acme with `role`. */
async function signedIn(
  browser: Browser,
  language: string,
  role: 'admin' | 'viewer' = 'admin',
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: language });
  const page = await context.newPage();
  await page.goto(await consoleSignInLink(fixture.stack.baseUrl, 'acme', role));
  expect(await page.getAttribute('html', 'lang')).toBe(language);
  expect(await axeViolations(page)).toEqual([]);
  await page
    .getByRole('button', { name: (await loadConsoleMessages(language as 'en')).signInButton })
    .click();
  await page.waitForURL(/\/console\/overview$/);
  return page;
}

async function assessPage(page: Page, name?: string) {
  expect(await axeViolations(page)).toEqual([]);
  if (name) await saveConsoleScreenshot(page, name);
}

describe('the console overview and API keys in Chromium', () => {
  let page: Page;
  beforeAll(async () => {
    page = await signedIn(fixture.browser, 'en');
  });

  it('shows the charts of the last 14 days with their figures, and 30 days on request', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();

    expect(await page.getByRole('img', { name: /Payments per day, last 14 days/ }).count()).toBe(1);
    expect(await page.getByRole('img', { name: /Conversion per day/ }).count()).toBe(1);
    expect(await page.locator('table').first().locator('tbody tr').count()).toBe(14);
    expect(await page.locator('table').first().locator('tbody tr').first().textContent()).toContain('2');
    await assessPage(page, 'overview');

    await page.getByRole('link', { name: '30 days' }).click();
    expect(await page.locator('table').first().locator('tbody tr').count()).toBe(30);
  });

  it('creates a key, shown once, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create a test key' }).click();
    const key = (await page.locator('#new-key').textContent()) ?? '';
    expect(key).toMatch(/^svc_test_/);
    await assessPage(page, 'keys');

    await page.getByRole('link', { name: 'API keys' }).click();
    expect(await page.content()).not.toContain(key);
    await page
      .getByRole('button', { name: /^Revoke key_/ })
      .first()
      .click();
    expect(await page.getByRole('status').filter({ hasText: 'Key revoked.' }).count()).toBe(1);
    await assessPage(page);
  });
});

/** A link's page with its refund form, the payments, refunds, export, erasure and audit pages, each passing axe. */
async function assessBooksAndLink(page: Page, language: PageLanguage) {
  const words = await loadConsoleMessages(language);
  const h1 = () => page.getByRole('heading', { level: 1 }).textContent();
  await page.goto(`${fixture.stack.baseUrl}/console/links/${linkId}`);
  expect(await h1()).toBe(words.link.title(linkId));
  await assessPage(page);
  await page.getByRole('link', { name: words.nav.payments, exact: true }).click();
  expect(await h1()).toBe(words.books.payments);
  await assessPage(page);
  await page.getByRole('link', { name: words.books.presets.today }).click();
  expect(await page.locator('table.totals').count()).toBe(1);
  await assessPage(page);
  await page.getByRole('link', { name: paymentId }).click();
  expect(await h1()).toBe(words.payment.title(paymentId));
  await assessPage(page);
  // The refund dialog: the amount left as written in this language, then its confirmation, refunding nothing.
  await page.getByLabel(words.payment.reason).selectOption('duplicate');
  await page.getByRole('button', { name: words.payment.review }).click();
  expect(await page.getByRole('main').textContent()).toContain(words.payment.reasons.duplicate);
  await assessPage(page);
  await page.getByRole('link', { name: words.payment.back }).click();
  await page.getByRole('link', { name: words.buyer.erase }).first().click();
  expect(await h1()).toBe(words.books.eraseTitle);
  await assessPage(page);
  for (const [nav, title] of [
    [words.nav.refunds, words.books.refunds],
    [words.nav.exports, words.books.exports],
    [words.nav.audit, words.audit.title],
  ]) {
    await page.getByRole('link', { name: nav, exact: true }).click();
    expect(await h1()).toBe(title);
    await assessPage(page);
  }
}

describe('the console in the browser’s language', () => {
  it.each(PAGE_LANGUAGES.filter((language) => language !== 'en'))(
    "speaks %s on the sign-in, links, overview, keys, settings and PSPs pages, a link's, the books' and the audit log, each passing axe",
    async (language) => {
      const words = await loadConsoleMessages(language);
      const page = await signedIn(fixture.browser, language);

      expect(await page.getAttribute('html', 'lang')).toBe(language);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words.overview.title);
      await page.getByRole('link', { name: words.nav.links, exact: true }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words.links.title);
      await assessPage(page, language === 'de' ? 'links-de' : undefined);
      await page.getByRole('link', { name: words.nav.overview }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words.overview.title);
      await assessPage(page);
      await page.getByRole('link', { name: words.nav.keys }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words.keys.title);
      await assessPage(page);
      await page.getByRole('link', { name: words.nav.settings }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words.nav.settings);
      expect(await page.getByRole('button', { name: words.settings.save }).count()).toBe(1);
      await assessPage(page);
      await page.getByRole('link', { name: words.nav.psps }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(words.psps.title);
      await assessPage(page);
      await assessBooksAndLink(page, language);
      await page.context().close();
    },
  );
});
