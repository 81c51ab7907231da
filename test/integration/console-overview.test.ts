import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPayment } from '../support/books.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { httpRequest } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** The overview (its own function, console-overview): the charts and the table of the same figures. */
let stack: TestStack;
let viewer: ConsoleClient;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();

beforeAll(async () => {
  stack = await startTestStack();
  await Promise.all([
    seedPayment('ov-acme', { created_at: day(0), amount: { value: '12.50', currency: 'EUR' } }),
    seedPayment('ov-acme', { created_at: day(0), status: 'failed' }),
    seedPayment('ov-acme', { created_at: day(2), amount: { value: '7.00', currency: 'EUR' } }),
    seedPayment('ov-acme', { created_at: day(20) }),
    seedPayment('ov-globex', { created_at: day(0) }),
  ]);
  viewer = await signInToConsole(stack.baseUrl, 'ov-acme', 'viewer');
});
afterAll(() => stack?.stop());

/** The rows of the per-day table, as text: day, payments, paid, amount paid, conversion. */
const dayRows = (text: string) =>
  [
    ...(/<caption>Per day[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(text)?.[1] ?? '').matchAll(
      /<tr>([\s\S]*?)<\/tr>/g,
    ),
  ].map((row) => [...(row[1] ?? '').matchAll(/<td>([^<]*)<\/td>/g)].map((cell) => cell[1]));

describe('the console overview', () => {
  it("counts the mode's payments of the last 14 days per day, with charts labelled for screen readers", async () => {
    const page = await viewer.get('/console/overview');
    const rows = dayRows(page.text);

    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(rows).toHaveLength(14);
    expect(rows[0]).toEqual([day(0).slice(0, 10), '2', '1', '12.50 EUR', '50 %']);
    expect(rows[2]).toEqual([day(2).slice(0, 10), '1', '1', '7.00 EUR', '100 %']);
    expect(rows[1]).toEqual([day(1).slice(0, 10), '0', '0', '–', '–']);
    expect(page.text.match(/<svg role="img" aria-labelledby="chart-\w+-title"/g)).toHaveLength(4);
    expect(page.text).toContain('<title id="chart-payments-title">Payments per day, last 14 days</title>');
    expect(page.text).not.toContain('<script');
  });

  it('shows 30 days when asked, and 14 for anything else', async () => {
    const thirty = dayRows((await viewer.get('/console/overview?days=30')).text);
    const other = dayRows((await viewer.get('/console/overview?days=9999')).text);

    expect(thirty).toHaveLength(30);
    expect(thirty.find((row) => row[0] === day(20).slice(0, 10))?.slice(1, 3)).toEqual(['1', '1']);
    expect(other).toHaveLength(14);
  });

  it('sends a visitor without a session to sign in', async () => {
    const page = await httpRequest(`${stack.baseUrl}/console/overview`);

    expect([page.status, page.headers.location]).toEqual([303, '/console/sign-in']);
  });
});
