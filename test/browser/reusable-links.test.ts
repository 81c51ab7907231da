import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { axeViolations } from '../support/axe.ts';
import { type BrowserStack, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import type { TestStack } from '../support/test-stack.ts';

let fixture: BrowserStack;
let stack: TestStack;
let acme: IssuedApiKey;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  fixture = await startBrowserStack();
  ({ stack, acme, browser } = fixture);
});
afterAll(async () => {
  await Promise.all(contexts.map((context) => context.close()));
  await fixture?.stop();
});

/** A buyer: a browser profile of their own (their own cookies), in English. */
async function buyer() {
  const context = await browser.newContext({ locale: 'en-GB' });
  contexts.push(context);
  return context.newPage();
}

describe('a reusable link in Chromium', () => {
  it('is paid by two buyers, each on their own sandbox session, then reads completed (axe: 0 violations)', async () => {
    const link = await createLink(stack, acme.api_key, {
      amount: { value: '7.50', currency: 'EUR' },
      reusable: true,
      max_payments: 2,
    });
    const first = await buyer();
    const second = await buyer();

    await first.goto(link.checkout_url);
    await first.waitForURL(/\/sandbox\/checkout\//);
    const firstSession = first.url();
    await second.goto(link.checkout_url);
    await second.waitForURL(/\/sandbox\/checkout\//);
    expect(second.url()).not.toBe(firstSession);
    // The first buyer opening the link again is sent back to their own session.
    await first.goto(link.checkout_url);
    await first.waitForURL(/\/sandbox\/checkout\//);
    expect(first.url()).toBe(firstSession);

    await second.getByRole('button', { name: 'Pay', exact: true }).click();
    await second.waitForURL(`${link.checkout_url}/complete`);
    expect(await second.textContent('h1')).toBe('Payment received');
    await first.getByRole('button', { name: 'Pay', exact: true }).click();
    await first.waitForURL(`${link.checkout_url}/complete`);
    expect(await first.textContent('h1')).toBe('Payment received');

    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body).toMatchObject({ status: 'completed', succeeded_payments: 2 });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: acme.api_key });
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual([
      'payment_link.paid',
      'payment_link.paid',
    ]);

    const third = await buyer();
    const page = await third.goto(link.checkout_url);
    expect(page?.status()).toBe(410);
    expect(await third.textContent('h1')).toBe('This payment link takes no more payments');
    expect(await axeViolations(third)).toEqual([]);
  });
});
