import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { seedPayment } from '../support/books.ts';
import { type BrowserStack, saveConsoleScreenshot, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { consoleSignInLink } from '../support/console.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * The console in Chromium, as someone who never used the API goes through it: sign in with the link `npm start`
 * prints, create a link, pay it on the sandbox, find the payment, refund part of it, see the webhook and its
 * attempts; then the list, cancel, the audit log and the mode switch. axe on every page. With
 * UPDATE_SCREENSHOTS=1 the pages are saved to docs/console/ for docs/console.md.
 */
let fixture: BrowserStack;
let receiver: Receiver;
let page: Page;

beforeAll(async () => {
  fixture = await startBrowserStack();
  receiver = await startReceiver();
  const context = await fixture.browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
});
afterAll(async () => {
  await receiver?.close();
  await fixture?.stop();
});

async function assessPage(name: string) {
  expect(await axeViolations(page)).toEqual([]);
  expect(await page.locator('.mode').count()).toBe(name === 'sign-in' ? 0 : 1);
  await saveConsoleScreenshot(page, name);
}

describe('the merchant console in Chromium', () => {
  let linkUrl: string;
  let checkoutUrl: string;

  it('signs in from the keyboard with a one-time link, in test mode, onto the overview', async () => {
    await page.goto(await consoleSignInLink(fixture.stack.baseUrl, 'acme', 'admin'));
    await assessPage('sign-in');

    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Sign in');
    await page.keyboard.press('Enter');

    await page.waitForURL(/\/console\/overview$/);
    expect(await page.getByRole('status').first().textContent()).toContain('TEST MODE');
    await page.getByRole('link', { name: 'Links', exact: true }).click();
    await assessPage('links');
  });

  it('creates a link: the API validation speaks on a bad amount, then the URL and QR code show', async () => {
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByLabel('Fixed amount', { exact: true }).fill('12.345');
    await page.getByRole('button', { name: 'Create link' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('/amount/value');
    await assessPage('new-link');

    await page.getByLabel('Fixed amount', { exact: true }).fill('12.00');
    await page.getByLabel('Description').fill('Console order 1');
    await page.getByLabel(/Webhook URL/).fill(`${receiver.url}/hooks`);
    await page.getByLabel('Description').press('Enter');

    await page.waitForURL(/\/console\/links\/pl_\w+\?notice=created$/);
    linkUrl = page.url().split('?')[0] as string;
    checkoutUrl = (await page.locator('dd a code').textContent()) as string;
    expect(await page.getByRole('img', { name: 'QR code of the checkout URL' }).count()).toBe(1);
    expect(await page.locator('dd a code').textContent()).toMatch(/\/checkout\/pl_\w+$/);
    await assessPage('link-created');
  });

  it('creates a reusable link of line items, for some methods and a language, as the API would', async () => {
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByLabel('Line items (the amount is their sum)').check();
    await page.getByLabel('Item 1 name').fill('T-shirt');
    await page.getByLabel('Item 1 quantity').fill('2');
    await page.getByLabel('Item 1 unit price').fill('15.00');
    await page.getByLabel('Item 2 name').fill('Socks');
    await page.getByLabel('Item 2 unit price').fill('4.50');
    await page.getByLabel('card', { exact: true }).check();
    await page.getByLabel('ideal', { exact: true }).check();
    await page.getByLabel('Reusable: many buyers may pay it').check();
    await page.getByLabel('Most payments (reusable only)').fill('3');
    await page.getByLabel('Checkout language').selectOption('nl');
    await page.getByRole('button', { name: 'Create link' }).click();

    await page.waitForURL(/notice=created$/);
    const details = (await page.locator('dl').textContent()) ?? '';
    expect(details).toContain('€34.50 (2 × T-shirt at €15.00; 1 × Socks at €4.50)');
    expect(details).toContain('reusable, 0 of 3 payments');
    expect(details).toContain('card, ideal');
    expect(details).toMatch(/Checkout language\s*nl/);
  });

  it('finds the payment made on the sandbox, refunds part of it, and shows the webhooks with their attempts', async () => {
    const buyer = await fixture.browser.newPage();
    await buyer.goto(checkoutUrl);
    await buyer.getByRole('button', { name: 'Pay', exact: true }).click();
    await buyer.waitForURL(`${checkoutUrl}/complete`);
    await buyer.close();

    await eventually(async () => {
      await page.goto(linkUrl);
      return (await page.locator('table').first().textContent())?.includes('paid');
    });
    await page.getByRole('table').first().getByRole('link', { name: /^pay_/ }).click();
    await page.getByLabel(/^Amount/).fill('5.00');
    await page.getByRole('button', { name: 'Review the refund' }).click();
    await page.getByRole('button', { name: 'Refund €5.00' }).click();

    await page.waitForURL(/notice=refunded$/);
    await page.goto(linkUrl);
    const refunds = page.getByRole('table').nth(1);
    expect(await refunds.textContent()).toMatch(/refunded.*€5\.00/s);
    await eventually(async () => {
      await page.reload();
      const webhooks = (await page.getByRole('table').nth(2).textContent()) ?? '';
      return webhooks.includes('refund.succeeded') && webhooks.includes(': 200,');
    });
    expect(await page.getByRole('table').nth(2).textContent()).toContain('payment_link.paid');
    await assessPage('link-paid');
  });

  it("lists the account's payments and refunds, exports the payments' CSV, and erases a buyer after confirming", async () => {
    const linkId = linkUrl.split('/').pop() as string;
    const now = new Date().toISOString();
    const withBuyer = await seedPayment('acme', {
      created_at: now,
      link_id: linkId,
      client_reference_id: 'order-2231',
      buyer: { email: 'ada@example.com', name: 'Ada Buyer' },
      custom_fields: [{ key: 'po', label: 'PO number', type: 'text', value: 'PO-77' }],
    });
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await page.getByLabel('Link id').fill(linkId);
    await page.getByRole('button', { name: 'Filter' }).click();
    const payments = (await page.getByRole('table').textContent()) ?? '';
    expect(payments).toContain('order-2231');
    expect(payments).toMatch(/paid.*€12\.00/s);
    await assessPage('payments');
    // The buyer and their answers are on the payment's own page.
    await page.getByRole('link', { name: withBuyer.id }).click();
    expect(await page.getByRole('main').textContent()).toMatch(
      /order-2231.*Ada Buyer.*ada@example\.com.*PO number: PO-77/s,
    );

    await page.getByRole('link', { name: 'Refunds', exact: true }).click();
    expect(await page.getByRole('table').textContent()).toMatch(/refunded.*€5\.00/s);
    await assessPage('refunds');

    await page.getByRole('link', { name: 'Exports' }).click();
    const today = now.slice(0, 10);
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByLabel('To', { exact: true }).fill(today);
    await page.getByLabel('Link id').fill(linkId);
    await assessPage('exports');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download payments of this period' }).click(),
    ]);
    const csv = await new Response(await download.createReadStream()).text();
    expect(download.suggestedFilename()).toBe('payments.csv');
    expect(csv.split('\r\n')[0]).toMatch(/^id,created_at,/);
    expect(csv).toContain(`${withBuyer.id},`);

    // The same buyer's declined attempt on the link, before they paid.
    const declined = await seedPayment('acme', {
      created_at: new Date(Date.parse(now) - 60_000).toISOString(),
      link_id: linkId,
      status: 'failed',
      client_reference_id: 'order-2231',
      buyer: { email: 'ada.declined@example.com' },
    });
    await page.goto(`${fixture.stack.baseUrl}/console/links/${linkId}/payments/${withBuyer.id}`);
    await page.getByRole('link', { name: 'Erase buyer details' }).click();
    // The confirmation says what will be erased: this payment and the buyer's other attempt on the link.
    expect(await page.getByRole('listitem').filter({ hasText: declined.id }).textContent()).toMatch(
      /: declined, /,
    );
    expect(await page.getByRole('main').textContent()).toContain('cannot be linked to this buyer');
    await assessPage('erase-buyer');
    await page.getByRole('button', { name: 'Erase' }).click();
    await page.goto(`${fixture.stack.baseUrl}/console/links/${linkId}/payments/${withBuyer.id}`);
    const erased = (await page.getByRole('main').textContent()) ?? '';
    expect(erased).toContain('erased on');
    expect(erased).not.toContain('ada@example.com');
    await page.goto(`${fixture.stack.baseUrl}/console/links/${linkId}/payments/${declined.id}`);
    expect(await page.getByRole('main').textContent()).not.toContain('ada.declined@example.com');
  });

  it('creates a link that asks for an e-mail, a question of its own and a quantity, errors at their fields', async () => {
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByLabel('Line items (the amount is their sum)').check();
    await page.getByLabel('Item 1 name').fill('Ticket');
    await page.getByLabel('Item 1 unit price').fill('20.00');
    await page.getByLabel('Item 1: the buyer picks the quantity').check();
    await page.getByLabel('Item 1 least quantity').fill('3');
    await page.getByLabel('Item 1 most quantity').fill('2');
    await page.getByLabel('E-mail address').selectOption('required');
    await page.getByText('Questions of your own').click();
    await page.locator('#custom_1_type').selectOption('text');
    await page.locator('#custom_1_key').fill('po');
    await page.locator('#custom_1_label').fill('PO number');
    await page.getByRole('button', { name: 'Create link' }).click();
    expect(await page.locator('#item_minimum_1-error').textContent()).toContain('Must not be more than');
    await assessPage('new-link-questions');

    await page.getByLabel('Item 1 least quantity').fill('1');
    await page.getByLabel('Item 1 most quantity').fill('5');
    await page.getByRole('button', { name: 'Create link' }).click();

    await page.waitForURL(/notice=created$/);
    const details = (await page.locator('dl').textContent()) ?? '';
    expect(details).toContain('1 × Ticket at €20.00, buyer picks 1 to 5');
    expect(details).toContain('email (required); “PO number” (text)');
  });

  it('lists links by status, finds one by id, and cancels an open one', async () => {
    const open = await createLink(fixture.stack, fixture.acme.api_key, { description: 'To cancel' });
    await page.goto(`${fixture.stack.baseUrl}/console/links`);
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Filter' }).click();
    const paidList = (await page.getByRole('table').textContent()) ?? '';
    expect(paidList).toContain('Console order 1');
    expect(paidList).not.toContain('To cancel');

    await page.getByLabel('Link id').fill(open.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('button', { name: 'Cancel link' }).click();

    await page.waitForURL(/notice=canceled$/);
    expect(await page.locator('dl dd').first().textContent()).toBe('canceled');
  });

  it('adds a webhook endpoint with its secret shown once, disables it, rotates its secret and redelivers an event', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await assessPage('webhooks');
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/endpoint`);
    await page.getByLabel('Description').fill('ERP');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const created = (await page.getByRole('status').nth(1).textContent()) ?? '';
    expect(created).toMatch(/shown this once.*whsec_\S+/s);
    const endpointId = /we_[0-9A-Za-z]{24}/.exec(
      (await page.getByRole('table').first().textContent()) ?? '',
    )?.[0];

    await page.getByRole('button', { name: `Disable ${endpointId}` }).click();
    expect(await page.getByRole('table').first().textContent()).toContain('disabled');
    await page.getByRole('button', { name: `Rotate secret of ${endpointId}` }).click();
    const rotated = (await page.getByRole('status').nth(1).textContent()) ?? '';
    expect(rotated).toMatch(/whsec_\S+/);
    expect(rotated.match(/whsec_\S+/)?.[0]).not.toBe(created.match(/whsec_\S+/)?.[0]);
    await assessPage('webhooks-secret');

    await page.getByRole('button', { name: `Enable ${endpointId}` }).click();
    await page.getByRole('button', { name: `Send test event to ${endpointId}` }).click();
    expect(await page.getByRole('status').nth(1).textContent()).toMatch(
      new RegExp(`^Test event evt_\\w+ to ${endpointId}: answered 2\\d\\d in \\d+ ms\\.$`),
    );
    const testEvent = /evt_\w+/.exec(
      (await page.getByRole('status').nth(1).textContent()) ?? '',
    )?.[0] as string;
    await page.goto(`${fixture.stack.baseUrl}/console/events/${testEvent}`);
    // Each recipient by its URL, with every attempt's answer and time.
    expect(await page.getByRole('table').textContent()).toMatch(
      new RegExp(`${receiver.url}/endpoint.*: 2\\d\\d, \\d+ ms`, 's'),
    );
    await assessPage('event');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page
      .getByLabel(`Recover ${endpointId} since (RFC 3339)`)
      .fill(new Date(Date.now() - 3_600_000).toISOString());
    await page.getByRole('button', { name: `Recover ${endpointId}`, exact: true }).click();
    expect(await page.getByRole('status').nth(1).textContent()).toMatch(/^Recovery started/);

    const events = page.getByRole('table').nth(1);
    expect(await events.textContent()).toContain('refund.succeeded');
    await events.getByRole('button').first().click();
    expect(await page.getByRole('status').nth(1).textContent()).toBe('The event is queued again.');
  });

  it('shows the PSP connections with health, fees and performance, and saves routing the API validates', async () => {
    const connection = await addConnection({
      account: 'acme',
      mode: 'test',
      provider: 'sandbox',
      name: 'Sandbox A',
    });
    await page.getByRole('link', { name: 'PSPs' }).click();
    const connections = (await page.getByRole('table').textContent()) ?? '';
    expect(connections).toMatch(new RegExp(`Sandbox A\\s*${connection.id}\\s*sandbox\\s*enabled\\s*healthy`));

    await page.getByLabel(/^Routing/).fill('{"rules":[],"default":["pc_000000000000000000000000"]}');
    await page.getByRole('button', { name: 'Save routing' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('/default/0');
    await assessPage('psps');

    await page.getByLabel(/^Routing/).fill(`{"rules":[],"default":["${connection.id}"]}`);
    await page.getByRole('button', { name: 'Save routing' }).click();
    expect(await page.getByRole('status').nth(1).textContent()).toBe('Routing saved.');
    const saved = await fixture.stack.request('GET', '/v1/routing', { key: fixture.acme.api_key });
    expect(saved.body.default).toEqual([connection.id]);
  });

  it('previews checkout settings as buyers would see them, refuses what the API refuses, then saves', async () => {
    await page.getByRole('link', { name: 'Checkout settings' }).click();
    await page.getByLabel('Display name').fill('Acme Coffee');
    await page.getByLabel(/^Accent colour/).fill('#ffff00');
    await page.getByRole('button', { name: 'Preview' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('/accent_color');

    await page.getByLabel(/^Accent colour/).fill('#7a1f00');
    await page.getByLabel('Support e-mail').fill('help@acme.example');
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('region', { name: 'Checkout preview' });
    expect(await preview.textContent()).toMatch(/Acme Coffee.*help@acme\.example/s);
    expect(
      await preview.locator('.pay').evaluate((element) => {
        // Runs in the page, where the DOM globals exist; this project's TypeScript has no DOM library.
        const { getComputedStyle } = globalThis as unknown as {
          getComputedStyle: (node: unknown) => { backgroundColor: string };
        };
        return getComputedStyle(element).backgroundColor;
      }),
    ).toBe('rgb(122, 31, 0)');
    const unsaved = await fixture.stack.request('GET', '/v1/checkout-settings', {
      key: fixture.acme.api_key,
    });
    expect(unsaved.body.display_name).toBeNull();
    await assessPage('settings-preview');

    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.getByRole('status').nth(1).textContent()).toBe('Settings saved.');
    const saved = await fixture.stack.request('GET', '/v1/checkout-settings', { key: fixture.acme.api_key });
    expect(saved.body).toMatchObject({ display_name: 'Acme Coffee', accent_color: '#7a1f00' });
  });

  it('shows admins the audit log of every change, and switches to live mode unmistakably', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    const audit = (await page.getByRole('table').textContent()) ?? '';
    expect(audit).toMatch(
      /routing\.edit.*event\.redeliver.*webhook\.manage.*link\.cancel.*refund\.create.*link\.create/s,
    );
    expect(audit).toContain('127.0.0.1');
    await assessPage('audit');

    await page.getByRole('link', { name: 'Exports' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Exports');
    await assessPage('exports');

    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('LIVE MODE');
    await assessPage('live-mode');
  });
});
