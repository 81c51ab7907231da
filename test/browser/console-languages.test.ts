import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CUSTOM_FIELDS } from '../../functions/domain/custom-fields.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../../functions/domain/locale.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';
import { axeViolations } from '../support/axe.ts';
import { type BrowserStack, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { consoleSignInLink } from '../support/console.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * The create-link form, the webhooks page and an event's page in each of the console's languages besides English,
 * axe on each (test/browser/console.test.ts checks them in English, test/browser/console-more.test.ts has the
 * other translated pages).
 */
let fixture: BrowserStack;
let receiver: Receiver;
/** A canceled link's event, delivered to the link's webhook URL before any endpoint exists. */
let eventId: string;

beforeAll(async () => {
  [fixture, receiver] = await Promise.all([startBrowserStack(), startReceiver()]);
  const key = fixture.acme.api_key;
  const link = await createLink(fixture.stack, key, { webhook_url: `${receiver.url}/link` });
  await fixture.stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key });
  await eventually(() => receiver.received.length > 0, { what: 'the canceled link’s webhook' });
  const feed = await fixture.stack.request('GET', '/v1/events', { key });
  eventId = feed.body.data[0].id;
});
afterAll(async () => {
  await receiver?.close();
  await fixture?.stop();
});

async function signedIn(language: PageLanguage): Promise<Page> {
  const context = await fixture.browser.newContext({
    viewport: { width: 1100, height: 900 },
    locale: language,
  });
  const page = await context.newPage();
  await page.goto(await consoleSignInLink(fixture.stack.baseUrl, 'acme', 'admin'));
  await page.getByRole('button', { name: (await loadConsoleMessages(language)).signInButton }).click();
  await page.waitForURL(/\/console\/links$/);
  return page;
}

async function expectPage(page: Page, language: PageLanguage, heading: string) {
  expect(await page.getAttribute('html', 'lang')).toBe(language);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
  expect(await axeViolations(page)).toEqual([]);
}

describe('the create form, the webhooks page and an event’s page in the browser’s language', () => {
  it.each(PAGE_LANGUAGES.filter((language) => language !== 'en'))(
    'speak %s and pass axe, with the errors of a refused form too',
    async (language) => {
      const words = await loadConsoleMessages(language);
      const form = words.linkForm;
      const page = await signedIn(language);

      await page.getByRole('link', { name: words.nav.newLink }).click();
      await page.getByText(form.ownQuestions(MAX_CUSTOM_FIELDS)).click();
      await expectPage(page, language, form.title);
      await page.getByLabel(form.amountKinds.line_items).check();
      await page.getByLabel(form.itemNameLabel(1), { exact: true }).fill('Ticket');
      await page.getByLabel(form.itemPriceLabel(1), { exact: true }).fill('20.00');
      await page.getByLabel(form.itemAdjustableLabel(1)).check();
      await page.getByLabel(form.itemLeastLabel(1)).fill('3');
      await page.getByLabel(form.itemMostLabel(1)).fill('2');
      await page.getByLabel(form.details.email).selectOption('required');
      await page.getByRole('button', { name: form.create }).click();
      expect(await page.getByRole('alert').first().textContent()).toContain(form.notCreated);
      expect(await page.locator('#item_minimum_1-error').count()).toBe(1);
      await expectPage(page, language, form.title);

      const hooks = words.webhooks;
      const url = `${receiver.url}/${language}`;
      await page.getByRole('link', { name: words.nav.webhooks }).click();
      await page.getByLabel(hooks.url, { exact: true }).fill(url);
      await page.getByRole('button', { name: hooks.add }).click();
      expect(await page.getByRole('status').nth(1).textContent()).toContain(hooks.secretShown(url));
      await expectPage(page, language, hooks.title);

      await page.goto(`${fixture.stack.baseUrl}/console/events/${eventId}`);
      await expectPage(page, language, hooks.eventTitle(eventId));
      expect(await page.getByRole('table').textContent()).toContain(hooks.linkWebhookUrl);
      await page.context().close();
    },
  );
});
