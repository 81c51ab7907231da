import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleRole } from '../../functions/domain/console-access.ts';
import { axeViolations } from '../support/axe.ts';
import { seedPayment } from '../support/books.ts';
import { type BrowserStack, saveConsoleScreenshot, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { consoleSignInLink } from '../support/console.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * The console's tasks as a finance person does them, at 1,366 × 768 (docs/console.md): which recipient got a
 * webhook, and redelivering it; today's total, in tables that fit the screen; a payment's page; a viewer sees no
 * control it cannot use; a part refunded with a reason after its confirmation, and what remains. axe on every page; with UPDATE_SCREENSHOTS=1 the pages are saved to docs/console/.
 */
let fixture: BrowserStack;
let erp: Receiver;

beforeAll(async () => {
  [fixture, erp] = await Promise.all([startBrowserStack(), startReceiver()]);
});
afterAll(async () => {
  await erp?.close();
  await fixture?.stop();
});

/** A page at a laptop's size, signed in to acme with `role`: on the overview, where sign-in lands. */
async function signedIn(browser: Browser, role: ConsoleRole, locale = 'en'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, locale });
  const page = await context.newPage();
  await page.goto(await consoleSignInLink(fixture.stack.baseUrl, 'acme', role));
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/\/console\/overview$/);
  return page;
}

async function assessPage(page: Page, name?: string) {
  expect(await axeViolations(page)).toEqual([]);
  if (name) await saveConsoleScreenshot(page, name);
}

describe('landing', () => {
  it('lands on the overview, whose charts read at 12 px at least as drawn on the screen', async () => {
    const page = await signedIn(fixture.browser, 'finance');

    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    // Each text's font size times the scale it is drawn at (rotated labels included), for every text shown.
    const sizes = await page.locator('.chart svg text').evaluateAll((texts) =>
      // Runs in the page, where the DOM globals exist; this project's TypeScript has no DOM library.
      texts
        .filter((text) => text.textContent?.trim())
        .map((text) => {
          const ctm = (text as unknown as { getScreenCTM(): { a: number; b: number } }).getScreenCTM();
          const { getComputedStyle } = globalThis as unknown as {
            getComputedStyle: (node: unknown) => { fontSize: string };
          };
          return Number.parseFloat(getComputedStyle(text).fontSize) * Math.hypot(ctm.a, ctm.b);
        }),
    );
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(12);
    await assessPage(page);
    await page.context().close();
  });
});

describe('webhooks as the merchant sees them', () => {
  it('shows which recipient got an event: none set on the link, delivered to the endpoint; redelivers there', async () => {
    const endpoint = await fixture.stack.request('POST', '/v1/webhook-endpoints', {
      key: fixture.acme.api_key,
      body: { url: erp.url, enabled_events: ['*'], description: 'ERP' },
    });
    const link = await createLink(fixture.stack, fixture.acme.api_key, { description: 'No webhook URL' });
    await fixture.stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: fixture.acme.api_key });
    await eventually(async () => erp.received.length === 1);
    const page = await signedIn(fixture.browser, 'admin');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    const rows = page.getByRole('row');
    await eventually(async () => {
      await page.reload();
      return (await rows.filter({ hasText: erp.url }).last().textContent())?.includes('delivered');
    });
    expect(
      await rows.filter({ hasText: "the link's webhook URL: none set" }).first().textContent(),
    ).not.toContain('failed');
    await assessPage(page, 'webhooks-recipients');

    await page.getByRole('link', { name: erp.url }).first().click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Endpoint ${erp.url}`);
    expect(await rows.filter({ hasText: 'payment_link.canceled' }).textContent()).toMatch(
      /delivered.*1 \(latest: 200\)/,
    );
    await assessPage(page, 'webhook-endpoint');
    await rows
      .filter({ hasText: 'payment_link.canceled' })
      .getByRole('button', { name: /^Redeliver evt_\w+ to http/ })
      .click();
    expect(await page.getByRole('status').nth(1).textContent()).toBe('The event is queued again.');
    await eventually(async () => erp.received.length === 2);
    expect(endpoint.status).toBe(201);
  });
});

describe('only what the role can do', () => {
  it('shows a viewer no create form, no export or API keys entry, and the settings as text', async () => {
    const page = await signedIn(fixture.browser, 'viewer');
    const nav = page.getByRole('navigation');

    for (const hidden of ['New link', 'API keys', 'Exports', 'Audit log']) {
      expect(await nav.getByRole('link', { name: hidden }).count()).toBe(0);
    }
    await nav.getByRole('link', { name: 'Checkout settings' }).click();
    expect(await page.getByRole('textbox').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await assessPage(page);
    await nav.getByRole('link', { name: 'Webhooks' }).click();
    expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
    await assessPage(page);
    await nav.getByRole('link', { name: 'PSPs' }).click();
    expect(await page.getByRole('textbox').count()).toBe(0);
    await assessPage(page);
    await page.context().close();
  });
});

/** Whether the page scrolls sideways (its content wider than the window). */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => {
    // Runs in the page, where the DOM globals exist; this project's TypeScript has no DOM library.
    const { document } = globalThis as unknown as {
      document: { documentElement: { scrollWidth: number; clientWidth: number } };
    };
    return document.documentElement.scrollWidth > document.documentElement.clientWidth;
  });

describe('lists that fit and add up', () => {
  it("shows today's totals per currency, every list without sideways scrolling, and a payment's page", async () => {
    const link = await createLink(fixture.stack, fixture.acme.api_key, { description: 'Totals' });
    const now = new Date().toISOString();
    const paid = await seedPayment('acme', {
      created_at: now,
      link_id: link.id,
      amount: { value: '49.90', currency: 'EUR' },
      refunded_minor: 1000,
      client_reference_id: 'order-4711-b',
      buyer: { email: 'fin@example.com', name: 'Fin Buyer' },
    });
    await seedPayment('acme', {
      created_at: now,
      link_id: link.id,
      amount: { value: '10.10', currency: 'EUR' },
    });
    const page = await signedIn(fixture.browser, 'finance');

    // The search box of every page finds a payment by part of its buyer's reference, in any case.
    await page.getByRole('searchbox', { name: 'Search' }).fill('4711');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    expect(await page.getByRole('row', { name: new RegExp(paid.id) }).textContent()).toMatch(
      /Payment.*€49\.90\s*paid/s,
    );
    await assessPage(page);
    await page.getByRole('searchbox', { name: 'Search' }).fill('nothing here!');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Search');
    await assessPage(page);

    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await page.getByRole('link', { name: 'Today' }).click();
    const totals = (await page.locator('table.totals').textContent()) ?? '';
    expect(totals).toMatch(/EUR\s*2\s*€60\.00\s*€10\.00\s*€0\.00\s*€50\.00/);
    expect(await scrollsSideways(page)).toBe(false);
    await assessPage(page, 'payments-today');

    await page.getByRole('link', { name: paid.id }).click();
    const details = (await page.locator('dl').textContent()) ?? '';
    expect(details).toMatch(/Refunded\s*€10\.00\s*Remaining\s*€39\.90/);
    expect(details).toContain('Fin Buyer');
    expect(await page.getByRole('list').last().textContent()).toMatch(/UTC: Sent to the payment page of/);
    expect(await scrollsSideways(page)).toBe(false);
    await assessPage(page);

    for (const [nav, path] of [
      ['Refunds', '/console/refunds'],
      ['Links', '/console/links'],
      ['Webhooks', '/console/webhooks'],
    ] as const) {
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: nav, exact: true })
        .click();
      expect(new URL(page.url()).pathname).toBe(path);
      expect(await scrollsSideways(page)).toBe(false);
    }
    await page.goto(`${fixture.stack.baseUrl}/console/links/${link.id}`);
    expect(await scrollsSideways(page)).toBe(false);
    await page.context().close();
  });
});

describe('a refund with its reason', () => {
  it('refunds part of a payment after confirming the amount read back, and shows what remains', async () => {
    const link = await createLink(fixture.stack, fixture.acme.api_key, {
      amount: { value: '49.90', currency: 'EUR' },
    });
    const buyer = await fixture.browser.newPage();
    await buyer.goto(link.checkout_url);
    await buyer.getByRole('button', { name: 'Pay', exact: true }).click();
    await buyer.waitForURL(`${link.checkout_url}/complete`);
    await buyer.close();
    const page = await signedIn(fixture.browser, 'finance');

    await eventually(async () => {
      await page.goto(`${fixture.stack.baseUrl}/console/links/${link.id}`);
      return (await page.getByRole('table').first().textContent())?.includes('paid');
    });
    await page.getByRole('table').first().getByRole('link', { name: /^pay_/ }).click();
    const paymentId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(await page.getByLabel('Amount (EUR)').inputValue()).toBe('49.90');
    await page.getByLabel('Amount (EUR)').fill('10');
    await page.getByLabel('Reason').selectOption('requested_by_customer');
    await page.getByRole('button', { name: 'Review the refund' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      `Refund €10.00 of payment ${paymentId}?`,
    );
    expect(await page.getByRole('main').textContent()).toContain('€39.90 of the payment will remain.');
    await assessPage(page, 'refund-confirm');
    await page.getByRole('button', { name: 'Refund €10.00' }).click();

    await page.waitForURL(/notice=refunded$/);
    await eventually(async () => {
      await page.reload();
      return /Remaining\s*€39\.90/.test((await page.locator('dl').textContent()) ?? '');
    });
    expect(await page.getByRole('list').last().textContent()).toMatch(/Refund re_\w+ of €10\.00/);
    expect(await page.locator('dl').textContent()).toContain('Built-in sandbox (sandbox)');
    await assessPage(page, 'payment');
    await page.context().close();
  });
});
