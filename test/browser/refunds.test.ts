import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { type BrowserStack, startBrowserStack } from '../support/browser.ts';
import { createLink } from '../support/checkout-helpers.ts';
import type { TestStack } from '../support/test-stack.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

let fixture: BrowserStack;
let stack: TestStack;
let acme: IssuedApiKey;
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  fixture = await startBrowserStack();
  ({ stack, acme, browser } = fixture);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await fixture?.stop();
});

/** The verified webhooks the merchant's endpoint received for this link, oldest first. */
function webhooksOf(linkId: string): { type: string; data: Record<string, unknown> }[] {
  const verifier = new Webhook(acme.webhook_secret);
  return receiver.received
    .map((hook) => verifier.verify(hook.body, hook.headers as Record<string, string>))
    .map((payload) => payload as { type: string; data: Record<string, unknown> })
    .filter(({ data }) => data.id === linkId || (data.payment_link as { id?: string })?.id === linkId);
}

describe('a buyer pays in Chromium, then the merchant refunds', () => {
  it('refunds part, then the rest, and the merchant receives both refund webhooks', async () => {
    // Prepare: a link the buyer pays on the sandbox's page.
    const link = await createLink(stack, acme.api_key, { webhook_url: `${receiver.url}/hooks` });
    const page = await browser.newPage();
    await page.goto(link.checkout_url);
    await page.waitForURL(/\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(`${link.checkout_url}/complete`);
    await page.close();
    await eventually(async () => webhooksOf(link.id).some(({ type }) => type === 'payment_link.paid'));

    // Act: part of it, then all that remains.
    const refund = (body?: unknown) =>
      stack.request('POST', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key, body });
    const part = await refund({ amount: { value: '4.50', currency: 'EUR' } });
    const rest = await refund();

    // Assess: both succeeded, the link shows all of it refunded, and both webhooks arrived.
    expect([part.status, part.body.status, part.body.amount.value]).toEqual([201, 'succeeded', '4.50']);
    expect([rest.status, rest.body.status, rest.body.amount.value]).toEqual([201, 'succeeded', '6.00']);
    const refunded = await eventually(async () => {
      const hooks = webhooksOf(link.id).filter(({ type }) => type === 'refund.succeeded');
      return hooks.length === 2 && hooks;
    });
    expect(refunded.map(({ data }) => data.id).sort()).toEqual([part.body.id, rest.body.id].sort());
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body).toMatchObject({ status: 'paid', amount_refunded: { value: '10.50', currency: 'EUR' } });
  });
});
