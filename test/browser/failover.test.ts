import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { connectChromium } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let key: IssuedApiKey;
let browser: Browser;
/**
 * One page for both buyers, not a browser context each (about 0.25 CPU-s, docs/testing.md#cpu-per-file): each
 * opens a link of its own with `goto`, and the checkout's cookies are scoped to their link's page.
 */
let page: Page;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('browser-failover', 'test');
  browser = await connectChromium();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('a buyer in Chromium when the first PSP connection fails', () => {
  it('pays through the second connection, and the link names the payment, connection and provider', async () => {
    const failing = await addConnection({
      account: 'browser-failover',
      mode: 'test',
      provider: 'sandbox',
      name: 'Failing',
      simulate: 'fail',
    });
    const working = await addConnection({
      account: 'browser-failover',
      mode: 'test',
      provider: 'sandbox',
      name: 'Working',
    });
    const link = await createLink(stack, key.api_key);

    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${link.checkout_url}/complete`);
    expect(await page.textContent('h1')).toBe('Payment received');

    const paid = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: key.api_key });
    expect(paid.body).toMatchObject({
      status: 'paid',
      payment: {
        connection_id: working.id,
        provider: 'sandbox',
        reference: expect.stringMatching(/^sbpay_/),
      },
    });
    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: key.api_key,
    });
    expect(payments.body.data).toEqual([
      expect.objectContaining({ id: paid.body.payment.id, connection_id: working.id, status: 'succeeded' }),
      expect.objectContaining({
        connection_id: failing.id,
        status: 'failed',
        failure: expect.objectContaining({ code: 'psp_unavailable' }),
      }),
    ]);
  });

  it('after a Decline, pays with another payment provider from our page, which names no connection', async () => {
    const account = 'browser-another';
    const buyerKey = await stack.issueKey(account, 'test');
    const first = await addConnection({ account, mode: 'test', provider: 'sandbox', name: 'First' });
    const second = await addConnection({ account, mode: 'test', provider: 'sandbox', name: 'Second' });
    const link = await createLink(stack, buyerKey.api_key);

    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Decline', exact: true }).click();
    await page.getByRole('link', { name: 'Back to the merchant' }).click();
    await page.getByRole('heading', { name: 'Payment not completed' }).waitFor();
    expect(await page.content()).not.toContain('pc_');
    await page.getByRole('link', { name: 'Pay with another payment provider' }).click();
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${link.checkout_url}/complete`);

    const paid = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: buyerKey.api_key });
    expect(paid.body).toMatchObject({ status: 'paid', payment: { connection_id: second.id } });
    expect(first.id).not.toBe(second.id);
  });
});
