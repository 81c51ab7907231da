import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from '../../functions/domain/subscription.ts';
import { axeViolations } from '../support/axe.ts';
import { type BrowserStack, saveConsoleScreenshot, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { consoleSignInLink } from '../support/console.ts';
import { eventually } from '../support/eventually.ts';
import { MONTHLY, payOnSandbox, runAt, stored } from '../support/subscriptions.ts';

/**
 * The console's subscriptions in Chromium (docs/console.md#subscriptions): the list, a subscription's page with a
 * declined renewal and its retry, the renewal's page, and the cancel's confirmation, each passing axe; with
 * UPDATE_SCREENSHOTS=1 the list, the page and the confirmation are saved to docs/console/.
 */
let fixture: BrowserStack;
let subscription: Subscription;
const ACCOUNT = 'console-subs-browser';

beforeAll(async () => {
  fixture = await startBrowserStack();
  await addConnection({
    account: ACCOUNT,
    mode: 'test',
    provider: 'sandbox',
    name: 'Sandbox',
    simulate: 'renewal_soft_decline',
  });
  const key = await fixture.stack.issueKey(ACCOUNT, 'test');
  const link = await createLink(fixture.stack, key.api_key, { recurring: MONTHLY });
  await payOnSandbox(fixture.stack, link);
  const listed = await eventually(async () => {
    const page = await fixture.stack.request('GET', `/v1/subscriptions?link_id=${link.id}`, {
      key: key.api_key,
    });
    return page.body.data?.length === 1 && page.body.data[0];
  });
  subscription = await stored(listed.id);
  // A declined renewal, so that the page shows its latest failure and the retry to come.
  await runAt(subscription, subscription.current_period_end);
});
afterAll(async () => {
  await fixture?.stop();
});

async function signedIn(): Promise<Page> {
  const context = await fixture.browser.newContext({ viewport: { width: 1366, height: 900 }, locale: 'en' });
  const page = await context.newPage();
  await page.goto(await consoleSignInLink(fixture.stack.baseUrl, ACCOUNT, 'finance'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/overview$/);
  return page;
}

describe('the console subscriptions in Chromium', () => {
  it('lists them, opens one with its failure and renewals, and confirms a cancel, each page passing axe', async () => {
    const page = await signedIn();

    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    expect(await page.locator('h1').textContent()).toBe('Subscriptions');
    expect(await axeViolations(page)).toEqual([]);
    await saveConsoleScreenshot(page, 'subscriptions');

    await page.getByRole('link', { name: subscription.id }).click();
    expect(await page.locator('h1').textContent()).toBe(`Subscription ${subscription.id}`);
    expect(await page.getByRole('heading', { name: 'Latest failure' }).count()).toBe(1);
    expect(await page.locator('table tbody tr').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await saveConsoleScreenshot(page, 'subscription');

    await page.locator('table tbody a').click();
    expect(await page.locator('h1').textContent()).toMatch(/^Payment pay_/);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: subscription.id }).click();

    await page.getByRole('button', { name: 'Cancel now' }).click();
    expect(await page.locator('h1').textContent()).toContain(`Cancel subscription ${subscription.id} now?`);
    expect(await axeViolations(page)).toEqual([]);
    await saveConsoleScreenshot(page, 'subscription-cancel');

    await page.getByRole('button', { name: 'Yes, cancel it' }).click();
    expect(await page.getByRole('status').filter({ hasText: 'Subscription canceled.' }).count()).toBe(1);
    expect((await stored(subscription.id)).status).toBe('canceled');
    expect(await axeViolations(page)).toEqual([]);
  });
});
