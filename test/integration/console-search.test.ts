import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { seedPayment } from '../support/books.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

/** The console's one search box (docs/console.md#search): what it finds, each through its search keys. */
let stack: TestStack;
let apiKey: string;
let finance: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  apiKey = (await stack.issueKey('acme', 'test')).api_key;
  finance = await signInToConsole(stack.baseUrl, 'acme', 'finance');
});
afterAll(async () => {
  await stack?.stop();
});

const search = (query: string, client = finance) =>
  client.get(`/console/search?${new URLSearchParams({ q: query })}`);
const now = () => new Date().toISOString();

/** A link paid on the sandbox by a buyer who came with `reference`, and its payment's id. */
async function paidLink(amount: string, reference: string) {
  const link = await createLink(stack, apiKey, { amount: { value: amount, currency: 'EUR' } });
  await navigate(`${link.checkout_url}?client_reference_id=${reference}`);
  const session = (await storedLink(link.id)).psp_session;
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
  await eventually(async () => (await storedLink(link.id)).status === 'paid');
  return { link, paymentId: (await storedLink(link.id)).payment?.id as string };
}

describe('the console search box', () => {
  it('is on every page', async () => {
    for (const path of ['/console/links', '/console/payments', '/console/webhooks']) {
      expect((await finance.get(path)).text).toContain(
        '<form method="get" action="/console/search" role="search"',
      );
    }
  });

  it('opens a link, a payment and a refund by its id', async () => {
    const { link, paymentId } = await paidLink('12.34', 'INV-2026-0042');
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: apiKey,
      body: { amount: { value: '5.55', currency: 'EUR' } },
    });
    const paymentPage = `/console/links/${link.id}/payments/${paymentId}`;

    const [byLink, byPayment, byRefund] = await Promise.all([
      search(` ${link.id} `),
      search(paymentId),
      search(refund.body.id),
    ]);

    expect([byLink.status, byLink.headers.location]).toEqual([303, `/console/links/${link.id}`]);
    expect(byPayment.headers.location).toBe(paymentPage);
    expect(byRefund.headers.location).toBe(paymentPage);
  });

  it('finds payments and refunds by part of their reference, in any case, and a refund by its amount', async () => {
    const { link, paymentId } = await paidLink('23.45', 'SHOP-ord-77123');
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: apiKey,
      body: { amount: { value: '6.78', currency: 'EUR' } },
    });

    const [byPart, byBeginning, byAmount] = await Promise.all([
      search('77123'),
      search('shop-ORD'),
      search('6,78 €'),
    ]);

    for (const page of [byPart, byBeginning]) {
      expect(page.status).toBe(200);
      expect(page.text).toContain(`>${paymentId}</a>`);
      expect(page.text).toContain(`>${refund.body.id}</a>`);
    }
    expect(byAmount.text).toContain(`>${refund.body.id}</a>`);
    expect(byAmount.text).not.toContain(`>${paymentId}</a>`);
  });

  it('finds a payment by the beginning of its buyer’s e-mail address, in any case', async () => {
    const payment = await seedPayment('acme', {
      created_at: now(),
      buyer: { email: 'Grace.Hopper@Example.com' },
    });

    const [byBeginning, byWhole] = await Promise.all([
      search('grace.hop'),
      search('GRACE.HOPPER@EXAMPLE.COM'),
    ]);

    expect(byBeginning.text).toContain(`>${payment.id}</a>`);
    expect(byWhole.text).toContain(`>${payment.id}</a>`);
    expect(byBeginning.text).toContain('<td>Payment</td>');
  });

  it('finds payments by their amount in any currency, however it is typed', async () => {
    const euros = await seedPayment('acme', {
      created_at: now(),
      amount: { value: '49.90', currency: 'EUR' },
    });
    const dollars = await seedPayment('acme', {
      created_at: now(),
      amount: { value: '49.9', currency: 'USD' },
    });
    const yen = await seedPayment('acme', { created_at: now(), amount: { value: '4990', currency: 'JPY' } });

    const pages = await Promise.all(['49.90', '49,90', '€49.90', 'USD 49.9'].map((query) => search(query)));

    for (const page of pages) {
      expect(page.text).toContain(`>${euros.id}</a>`);
      expect(page.text).toContain(`>${dollars.id}</a>`);
      expect(page.text).not.toContain(`>${yen.id}</a>`);
    }
    expect(pages[0]?.text).toContain('€49.90');
  });

  it('finds a link by a metadata value, whole, in any case, and again after it changed', async () => {
    const link = await createLink(stack, apiKey, { metadata: { campaign: 'Spring-Sale-2026' } });

    const found = await search('spring-sale-2026');
    await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: apiKey,
      body: { metadata: { campaign: 'Autumn' } },
    });
    const [before, after] = await Promise.all([search('Spring-Sale-2026'), search('AUTUMN')]);

    expect(found.text).toContain(`>${link.id}</a>`);
    expect(found.text).toContain('<td>Link</td>');
    expect(before.status).toBe(404);
    expect(after.text).toContain(`>${link.id}</a>`);
  });

  it("never finds another account's items, nor the other mode's", async () => {
    const other = await seedPayment('globex', { created_at: now(), client_reference_id: 'ZEBRA-1' });
    const live = await seedPayment('acme', {
      created_at: now(),
      client_reference_id: 'ZEBRA-2',
      mode: 'live',
    });
    const own = await seedPayment('acme', { created_at: now(), client_reference_id: 'ZEBRA-3' });
    const admin = await signInToConsole(stack.baseUrl, 'acme', 'admin');

    const inTest = await search('zebra', admin);
    await admin.post('/console/mode', { mode: 'live', back: '/console/links' });
    const inLive = await search('zebra', admin);

    expect(inTest.text).toContain(`>${own.id}</a>`);
    expect(inTest.text).not.toContain(other.id);
    expect(inTest.text).not.toContain(live.id);
    expect(inLive.text).toContain(`>${live.id}</a>`);
    expect(inLive.text).not.toContain(own.id);
    expect(inLive.text).not.toContain(other.id);
  });

  it('keeps no search key of an erased buyer: the e-mail address and the reference find nothing', async () => {
    const payment = await seedPayment('acme', {
      created_at: now(),
      client_reference_id: 'ERASE-ME-9',
      buyer: { email: 'erase.me@example.com' },
    });
    expect((await search('erase.me@')).text).toContain(`>${payment.id}</a>`);

    const erased = await stack.request('DELETE', `/v1/payments/${payment.id}/buyer`, { key: apiKey });
    const [byEmail, byReference] = await Promise.all([search('erase.me@'), search('erase-me-9')]);

    expect(erased.status).toBeLessThan(300);
    expect([byEmail.status, byReference.status]).toEqual([404, 404]);
    const { Items } = await documentClient().send(new ScanCommand({ TableName: config().TABLE_NAME }));
    expect(JSON.stringify(Items)).not.toContain('erase.me@example.com');
    expect(JSON.stringify(Items)).not.toContain('eraseme9');
  });

  it("keeps no search key of an erased buyer's reference on the payment's refunds either", async () => {
    const { link, paymentId } = await paidLink('8.00', 'GONE-REF-5150');
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: apiKey,
      body: { amount: { value: '1.00', currency: 'EUR' } },
    });
    expect((await search('gone-ref')).text).toContain(`>${refund.body.id}</a>`);

    await stack.request('DELETE', `/v1/payments/${paymentId}/buyer`, { key: apiKey });

    expect((await search('gone-ref')).status).toBe(404);
    const { Items } = await documentClient().send(new ScanCommand({ TableName: config().TABLE_NAME }));
    expect(JSON.stringify(Items)).not.toContain('goneref5150');
  });

  it('says what it finds when it finds nothing', async () => {
    const nothing = await search('not a reference!');

    expect(nothing.status).toBe(404);
    expect(nothing.text).toContain('Nothing found for “not a reference!”.');
    expect(nothing.text).toContain('“4711” finds “ORD-4711”');
  });
});
