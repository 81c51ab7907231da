import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPayment } from '../support/books.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** The console's one search box (docs/console.md#search): what it finds, each by a key. */
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

const search = (query: string) => finance.get(`/console/search?${new URLSearchParams({ q: query })}`);

describe('the console search box', () => {
  it('is on every page', async () => {
    for (const path of ['/console/links', '/console/payments', '/console/webhooks']) {
      expect((await finance.get(path)).text).toContain(
        '<form method="get" action="/console/search" role="search"',
      );
    }
  });

  it('opens a link by its id, a payment holding a buyer by its id, and the payments of a reference', async () => {
    const link = await createLink(stack, apiKey, {});
    const payment = await seedPayment('acme', {
      created_at: new Date().toISOString(),
      link_id: link.id,
      client_reference_id: 'order-4711',
      buyer: { email: 'ada@example.com' },
    });

    const [byLink, byPayment, byReference] = await Promise.all([
      search(` ${link.id} `),
      search(payment.id),
      search('order-4711'),
    ]);
    const payments = await finance.get(String(byReference.headers.location));

    expect([byLink.status, byLink.headers.location]).toEqual([303, `/console/links/${link.id}`]);
    expect(byPayment.headers.location).toBe(`/console/links/${link.id}/payments/${payment.id}`);
    expect(byReference.headers.location).toBe('/console/payments?client_reference_id=order-4711');
    expect(payments.text).toContain(`>${payment.id}</a>`);
  });

  it('says what it finds when it finds nothing', async () => {
    const nothing = await search('not a reference!');

    expect(nothing.status).toBe(404);
    expect(nothing.text).toContain('No payment, link, event or endpoint found for “not a reference!”.');
    expect(nothing.text).toContain('client_reference_id');
  });
});
