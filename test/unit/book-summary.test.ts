import { describe, expect, it } from 'vitest';
import type { Payment } from '../../functions/domain/payment.ts';
import type { Books, BooksQuery } from '../../functions/ports/books.ts';
import type { LinkRepository } from '../../functions/ports/link-repository.ts';
import {
  MAX_SUMMARY_PAGES,
  SUMMARY_PAGE_SIZE,
  summarizeBookPayments,
} from '../../functions/use-cases/book-exports.ts';

const principal = { account: 'acme', mode: 'test' } as const;
const position = (payment: Payment) => `${payment.created_at}#${payment.id}`;

/** `count` succeeded payments of 1.00 EUR, one a second, newest first. */
function payments(count: number): Payment[] {
  return Array.from({ length: count }, (_, n) => {
    const at = new Date(Date.UTC(2026, 10, 1) + (count - n) * 1000).toISOString();
    return {
      id: `pay_${String(n).padStart(8, '0')}`,
      link_id: 'pl_1',
      account: 'acme',
      mode: 'test',
      connection_id: 'pc_1',
      provider: 'sandbox',
      status: 'succeeded',
      amount: { value: '1.00', currency: 'EUR' },
      provider_reference: null,
      failure: null,
      session_id: null,
      session_expires_at: null,
      next_check_at: null,
      checks: 0,
      created_at: at,
      updated_at: at,
      version: 1,
    };
  });
}

/** The books over `all`, recording every page asked. */
function books(all: Payment[]) {
  const asked: BooksQuery[] = [];
  const port: Books = {
    async payments(query) {
      asked.push(query);
      const older = all.filter((payment) => query.after === undefined || position(payment) < query.after);
      const entries = older.slice(0, query.limit);
      return { entries, next: older.length > query.limit ? position(entries.at(-1) as Payment) : undefined };
    },
    refunds: async () => ({ entries: [], next: undefined }),
  };
  return { port, asked };
}

const deps = (port: Books) => ({ books: port, links: {} as LinkRepository });

describe('the totals of a long period', () => {
  const limit = SUMMARY_PAGE_SIZE * MAX_SUMMARY_PAGES;

  it(`read at most ${MAX_SUMMARY_PAGES} pages of ${SUMMARY_PAGE_SIZE} per request, and continue where they stopped`, async () => {
    const all = payments(limit + 250);
    const { port, asked } = books(all);

    const first = await summarizeBookPayments(deps(port), principal, {});
    expect(asked).toHaveLength(MAX_SUMMARY_PAGES);
    expect(asked.every((query) => query.limit === SUMMARY_PAGE_SIZE)).toBe(true);
    expect(first.currencies).toEqual([expect.objectContaining({ currency: 'EUR', count: limit })]);
    expect(first.next).toBe(position(all[limit - 1] as Payment));

    const rest = await summarizeBookPayments(deps(port), principal, { after: first.next });
    expect(rest.currencies).toEqual([expect.objectContaining({ count: 250, gross: '250.00' })]);
    expect(rest.next).toBeUndefined();
  });

  it('read a short period whole in one request', async () => {
    const { port, asked } = books(payments(1_500));
    const summary = await summarizeBookPayments(deps(port), principal, {});
    expect(asked).toHaveLength(2);
    expect(summary).toEqual({
      currencies: [
        {
          currency: 'EUR',
          count: 1_500,
          gross: '1500.00',
          refunded: '0.00',
          fees: '0.00',
          net: '1500.00',
          payments_without_fee: 1_500,
        },
      ],
      next: undefined,
    });
  });
});
