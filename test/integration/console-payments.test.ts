import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { seedPayment } from '../support/books.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * The console's payments as finance reads them (docs/console.md): periods in one click in the account's time
 * zone, the selection's totals, connections by name, and a payment's own page.
 */
let stack: TestStack;
let key: IssuedApiKey;
let admin: ConsoleClient;
let viewer: ConsoleClient;
/** A zone whose today is another day than UTC's today at this hour (UTC−11 before 10:00 UTC, else UTC+14). */
const ZONE = new Date().getUTCHours() < 10 ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati';

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('tills', 'test');
  await stack.request('PUT', '/v1/account-settings', {
    key: key.api_key,
    body: { personal_data_retention_days: 400, time_zone: ZONE },
  });
  [admin, viewer] = await Promise.all([
    signInToConsole(stack.baseUrl, 'tills', 'admin'),
    signInToConsole(stack.baseUrl, 'tills', 'viewer'),
  ]);
});
afterAll(async () => {
  await stack?.stop();
});

/** A page's text without its markup, entities of apostrophes and spaces read back. */
const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&#39;', "'")
    .replace(/\s+/g, ' ');

describe('console payments', () => {
  it("offers today, yesterday and other periods as days of the account's time zone, and totals the selection as the API does", async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
    const till = await addConnection({ account: 'tills', mode: 'test', provider: 'sandbox', name: 'Till A' });
    const now = new Date().toISOString();
    await Promise.all([
      seedPayment('tills', {
        created_at: now,
        connection_id: till.id,
        amount: { value: '49.90', currency: 'EUR' },
      }),
      seedPayment('tills', {
        created_at: now,
        connection_id: till.id,
        amount: { value: '20.00', currency: 'EUR' },
        refunded_minor: 500,
        fee: {
          amount: { value: '0.50', currency: 'EUR' },
          net: { value: '19.50', currency: 'EUR' },
          source: 'reported',
        },
      }),
      seedPayment('tills', { created_at: now, amount: { value: '7.00', currency: 'USD' } }),
      seedPayment('tills', {
        created_at: now,
        status: 'failed',
        amount: { value: '99.00', currency: 'EUR' },
      }),
    ]);

    const list = await admin.get('/console/payments');
    const todayHref = /<a href="\/console\/payments\?([^"]+)">Today<\/a>/.exec(list.text)?.[1] ?? '';
    const todays = await admin.get(`/console/payments?${todayHref.replaceAll('&amp;', '&')}`);
    const api = await stack.request(
      'GET',
      `/v1/payments/summary?created[gte]=${today}&created[lt]=9999-01-01`,
      {
        key: key.api_key,
      },
    );

    expect(new URLSearchParams(todayHref.replaceAll('&amp;', '&')).get('from')).toBe(today);
    expect(textOf(list.text)).toContain('Pick a period to see its totals.');
    const totals = textOf(/<table class="totals">.*?<\/table>/s.exec(todays.text)?.[0] ?? '');
    expect(totals).toContain('EUR 2 €69.90 €5.00 €0.50 €64.40');
    expect(totals).toContain('USD 1 $7.00 $0.00 $0.00 $7.00');
    expect(api.body.currencies.map((sums: { net: string }) => sums.net)).toEqual(['64.40', '7.00']);
    expect(textOf(todays.text)).toContain('Till A (sandbox)');
    expect(todays.text).not.toContain(`>${till.id}<`);
  });

  it("shows a payment's page: money, buyer to those who may read it, answers, routing and a timeline with times", async () => {
    const link = await createLink(stack, key.api_key, {});
    const till = await addConnection({ account: 'tills', mode: 'test', provider: 'sandbox', name: 'Till B' });
    const payment = await seedPayment('tills', {
      created_at: '2026-11-20T10:00:00.000Z',
      updated_at: '2026-11-20T10:02:00.000Z',
      link_id: link.id,
      connection_id: till.id,
      amount: { value: '49.90', currency: 'EUR' },
      refunded_minor: 1000,
      client_reference_id: 'order-4711',
      buyer: { email: 'ada@example.com', name: 'Ada' },
      custom_fields: [{ key: 'po', label: 'PO number', type: 'text', value: 'PO-77' }],
    });
    const path = `/console/links/${link.id}/payments/${payment.id}`;

    const [asAdmin, asViewer, list, elsewhere] = await Promise.all([
      admin.get(path),
      viewer.get(path),
      admin.get(`/console/links/${link.id}`),
      admin.get(`/console/links/${link.id}/payments/pay_${'0'.repeat(22)}`),
    ]);

    const page = textOf(asAdmin.text);
    expect(asAdmin.status).toBe(200);
    expect(page).toContain('Status paid, partly refunded, €39.90 left');
    expect(page).toMatch(/Amount €49\.90 Refunded €10\.00 Remaining €39\.90 Fee not known Net not known/);
    expect(page).toContain('Connection Till B (sandbox)');
    expect(page).toMatch(/Reference order-4711 Buyer Ada ada@example\.com Answers PO number: PO-77/);
    expect(page).toContain('2026-11-20 10:00:00 UTC : Sent to the payment page of Till B (sandbox)');
    expect(page).toContain('2026-11-20 10:02:00 UTC : Last change: paid');
    expect(textOf(asViewer.text)).toContain('Buyer hidden from your role');
    expect(asViewer.text).not.toContain('ada@example.com');
    expect(list.text).toContain(`<a href="${path}">${payment.id}</a>`);
    expect(elsewhere.status).toBe(404);
  });

  it("answers 404 for a payment under another account's link", async () => {
    const theirs = await stack.issueKey('rivals', 'test');
    const link = await createLink(stack, theirs.api_key, {});
    const payment = await seedPayment('rivals', { created_at: new Date().toISOString(), link_id: link.id });

    const page = await admin.get(`/console/links/${link.id}/payments/${payment.id}`);

    expect(page.status).toBe(404);
    expect(page.text).not.toContain(payment.id);
  });
});
