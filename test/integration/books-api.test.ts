import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoBooks } from '../../functions/adapters/dynamodb/books.ts';
import { currentIndexNames } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  accountSettingsRepository,
  books,
  linkRepository,
  pspConnectionRepository,
} from '../../functions/dependencies.ts';
import type { Payment } from '../../functions/domain/payment.ts';
import { paymentsListing } from '../../functions/http/api/books-listings.ts';
import { listBookPaymentsQuery } from '../../functions/http/api/books-query.ts';
import { booksResponse } from '../../functions/http/api/books-response.ts';
import { validate } from '../../functions/http/validate.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { csvRecords, seedPayment } from '../support/books.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let globex: IssuedApiKey;

const hour = (n: number) => new Date(Date.UTC(2026, 9, 1) + n * 3_600_000).toISOString();
const CONNECTION_A = 'pc_booksA00000000000000000000001';
const CONNECTION_B = 'pc_booksB00000000000000000000001';

/** Twelve payments of acme, an hour apart, over two connections, statuses, links and references. */
let seeded: Payment[];

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('books-acme', 'test');
  globex = await stack.issueKey('books-globex', 'test');
  const link = 'pl_booksLink000000000000000001';
  seeded = [];
  for (let n = 0; n < 12; n++) {
    seeded.push(
      await seedPayment('books-acme', {
        created_at: hour(n),
        connection_id: n % 2 ? CONNECTION_B : CONNECTION_A,
        status: n % 3 ? 'succeeded' : 'failed',
        ...(n < 4 ? { link_id: link } : {}),
        ...(n === 5 || n === 9 ? { client_reference_id: 'buyer-42' } : {}),
        ...(n === 7 ? { buyer: { name: '=HYPERLINK("http://x")', email: '+31@example.com' } } : {}),
      }),
    );
  }
});
afterAll(() => stack.stop());

const newestFirst = (payments: Payment[]) =>
  [...payments].sort((a, b) => b.created_at.localeCompare(a.created_at)).map((payment) => payment.id);

/** Every page of a listing, following `next_cursor`, each page checked against the OpenAPI document. */
async function allPages(path: string, query: string, key = acme.api_key) {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const response = await stack.request('GET', `${path}?${query}${suffix}`, { key });
    expect(response.status).toBe(200);
    expectDocumented('get', path, response);
    ids.push(...response.body.data.map((entry: { id: string }) => entry.id));
    cursor = response.body.next_cursor;
  } while (cursor);
  return ids;
}

/** The same query asked as CSV. */
const csv = (path: string, query: string, key = acme.api_key) =>
  stack.request('GET', `${path}?${query}`, { key, headers: { accept: 'text/csv' } });

describe('GET /v1/payments', () => {
  it("lists the account's payments newest first, across its shards, page after page", async () => {
    expect(await allPages('/v1/payments', 'limit=5')).toEqual(newestFirst(seeded));
  });

  it.each([
    ['status=failed', (p: Payment) => p.status === 'failed'],
    [`connection_id=${CONNECTION_B}`, (p: Payment) => p.connection_id === CONNECTION_B],
    [
      'link_id=pl_booksLink000000000000000001',
      (p: Payment) => p.link_id === 'pl_booksLink000000000000000001',
    ],
    ['client_reference_id=buyer-42', (p: Payment) => p.client_reference_id === 'buyer-42'],
    [
      `created[gte]=${hour(3)}&created[lt]=${hour(8)}`,
      (p: Payment) => p.created_at >= hour(3) && p.created_at < hour(8),
    ],
    [
      `status=succeeded&connection_id=${CONNECTION_A}&created[lt]=${hour(10)}`,
      (p: Payment) => p.status === 'succeeded' && p.connection_id === CONNECTION_A && p.created_at < hour(10),
    ],
  ])('filters by %s', async (query, expected) => {
    expect(await allPages('/v1/payments', `limit=2&${query}`)).toEqual(newestFirst(seeded.filter(expected)));
  });

  it('shows the link, the reference and the buyer of each payment', async () => {
    const response = await stack.request('GET', '/v1/payments?client_reference_id=buyer-42', {
      key: acme.api_key,
    });
    expect(response.body.data[0]).toMatchObject({
      object: 'payment',
      link_id: seeded[9]?.link_id,
      client_reference_id: 'buyer-42',
      amount: { value: '10.00', currency: 'EUR' },
      buyer: null,
    });
  });

  it("shows another account nothing of acme's, and refuses acme's cursor", async () => {
    const first = await stack.request('GET', '/v1/payments?limit=1', { key: acme.api_key });
    const other = await stack.request('GET', '/v1/payments?client_reference_id=buyer-42', {
      key: globex.api_key,
    });
    const forged = await stack.request('GET', `/v1/payments?cursor=${first.body.next_cursor}`, {
      key: globex.api_key,
    });
    expect(other.body.data).toEqual([]);
    expect(forged.status).toBe(422);
    expect(forged.body.errors[0].pointer).toBe('/cursor');
  });

  it('refuses malformed filters with a problem pointing at them', async () => {
    const response = await stack.request('GET', '/v1/payments?client_reference_id=a%20b&status=paid', {
      key: acme.api_key,
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/client_reference_id',
      '/status',
    ]);
  });
});

describe('CSV exports', () => {
  it('streams the period as RFC 4180 CSV with a header row, decimal amounts and formulas neutralised', async () => {
    const response = await csv('/v1/payments', `created[gte]=${hour(0)}&created[lt]=${hour(24)}`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expectDocumented('get', '/v1/payments', response);
    expect(response.body).toContain('\r\n');
    const records = csvRecords(response.body);
    expect(records.map((record) => record.id)).toEqual(newestFirst(seeded));
    const withBuyer = records.find((record) => record.id === seeded[7]?.id);
    expect(withBuyer).toMatchObject({
      amount: '10.00',
      currency: 'EUR',
      buyer_name: `'=HYPERLINK("http://x")`,
      buyer_email: "'+31@example.com",
    });
  });

  it('takes the filters of the JSON listing', async () => {
    const response = await csv(
      '/v1/payments',
      `created[gte]=${hour(0)}&created[lt]=${hour(24)}&status=failed`,
    );
    expect(csvRecords(response.body).map((record) => record.id)).toEqual(
      newestFirst(seeded.filter((payment) => payment.status === 'failed')),
    );
  });

  it.each([
    ['', '/created[gte]'],
    [`created[gte]=${hour(0)}`, '/created[lt]'],
    [`created[gte]=${hour(0)}&created[lt]=${hour(24 * 31 + 3)}`, '/created[lt]'],
    [`created[gte]=${hour(5)}&created[lt]=${hour(5)}`, '/created[lt]'],
  ])('refuses a period that is not bounded to 31 days (%s)', async (query, pointer) => {
    const response = await csv('/v1/payments', query);
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body.errors[0].pointer).toBe(pointer);
  });

  it('exports exactly 31 days', async () => {
    const response = await csv('/v1/payments', `created[gte]=${hour(0)}&created[lt]=${hour(24 * 31)}`);
    expect(response.status).toBe(200);
    expect(csvRecords(response.body)).toHaveLength(seeded.length);
  });
});

describe('GET /v1/refunds', () => {
  it("lists the account's refunds, with their payment's connection, as JSON and CSV", async () => {
    // An account of its own: the paid link's payment would join acme's seeded ones.
    const shop = await stack.issueKey('books-shop', 'test');
    const link = await createLink(stack, shop.api_key, { amount: { value: '20.00', currency: 'EUR' } });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(link.id)).status === 'paid');
    const first = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: shop.api_key,
      body: { amount: { value: '5.00', currency: 'EUR' } },
    });
    const second = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, { key: shop.api_key });
    const paid = await storedLink(link.id);

    const listed = await allPages('/v1/refunds', `link_id=${link.id}`, shop.api_key);
    const page = await stack.request('GET', '/v1/refunds?status=succeeded&limit=1', { key: shop.api_key });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const exported = await csv('/v1/refunds', `created[gte]=${since}&created[lt]=${until}`, shop.api_key);
    const other = await stack.request('GET', '/v1/refunds', { key: globex.api_key });

    expect(listed).toEqual([second.body.id, first.body.id]);
    expect(page.body.data[0]).toMatchObject({
      id: second.body.id,
      object: 'refund',
      payment_link_id: link.id,
      connection_id: paid.payment?.connection_id,
      status: 'succeeded',
      amount: { value: '15.00', currency: 'EUR' },
      client_reference_id: null,
    });
    expect(csvRecords(exported.body)).toEqual([
      expect.objectContaining({ id: second.body.id, amount: '15.00', link_id: link.id, status: 'succeeded' }),
      expect.objectContaining({ id: first.body.id, amount: '5.00', payment_id: paid.payment?.id }),
    ]);
    expect(other.body.data).toEqual([]);
  });
});

describe("a filter's read budget", () => {
  it('ends a page after its rounds with what it found and a cursor past the last entry read', async () => {
    const books = new DynamoBooks(documentClient(), config().TABLE_NAME, currentIndexNames, {
      roundSize: 2,
      maxRounds: 2,
    });
    const pages: { ids: string[]; next: string | undefined }[] = [];
    let after: string | undefined;
    do {
      const page = await books.payments({
        account: 'books-acme',
        mode: 'test',
        limit: 10,
        status: 'failed',
        after,
      });
      pages.push({ ids: page.entries.map((payment) => payment.id), next: page.next });
      after = page.next;
    } while (after && pages.length < 10);

    const failed = newestFirst(seeded.filter((payment) => payment.status === 'failed'));
    // 12 payments, 4 read a page: every page holds fewer than `limit`, the last one ends the list.
    expect(pages.map((page) => page.ids.length)).toEqual([1, 1, 2, 0]);
    expect(pages.flatMap((page) => page.ids)).toEqual(failed);
    expect(pages.at(-1)?.next).toBeUndefined();
  });
});

describe('a CSV export longer than its bound', () => {
  it('ends after whole rows with a Link to the same request continued, which exports the rest', async () => {
    const principal = { account: 'books-acme', mode: 'test' } as const;
    const deps = {
      books: books(),
      links: linkRepository(),
      connections: pspConnectionRepository(),
      accountSettings: accountSettingsRepository(),
    };
    const exportOf = (parameters: Record<string, string>) => {
      const listing = paymentsListing(deps, principal);
      return booksResponse(
        {
          ...listing,
          // Pages of 5 and a bound of one byte: each answer is its header and one page.
          rows: (request) => listing.rows({ ...request, limit: 5 }),
          maxCsvBytes: 1,
        },
        principal,
        {
          headers: { accept: 'text/csv' },
          queryStringParameters: parameters,
          rawPath: '/v1/payments',
        } as never,
        validate(listBookPaymentsQuery(), parameters),
      );
    };
    const period = { 'created[gte]': hour(0), 'created[lt]': hour(24) };

    const ids: string[] = [];
    let parameters: Record<string, string> = period;
    for (let answers = 0; answers < 5; answers++) {
      const answer = await exportOf(parameters);
      ids.push(...csvRecords(String(answer.body)).map((record) => record.id as string));
      const link = answer.headers?.Link;
      if (link === undefined) break;
      const next = new URL(String(link).replace(/^<(.*)>; rel="next"$/, 'http://x$1'));
      expect(next.pathname).toBe('/v1/payments');
      parameters = Object.fromEntries(next.searchParams);
      expect(parameters).toMatchObject(period);
    }

    expect(ids).toEqual(newestFirst(seeded));
  });
});
